import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

KAFKA_OPTS = {
    "kafka.bootstrap.servers": BOOTSTRAP,
    "subscribe": "orders",
    "startingOffsets": "earliest",
}

def read_orders():
    opts = dict(KAFKA_OPTS)
    opts.update({"maxOffsetsPerTrigger": 10000, "subscribe": "orders_v2"})
    return spark.readStream.format("kafka").options(**opts).load()

raw = read_orders()
orders = raw.select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("o")).select("o.*")
(orders.writeStream.format("delta")
    .option("checkpointLocation", "/chk/orders_bronze")
    .toTable("bronze.orders"))
