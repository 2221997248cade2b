import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

TOPICS = ["orders", "payments"]
raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", BOOTSTRAP)
       .option("subscribe", ",".join(TOPICS)).load())
(raw.selectExpr("CAST(value AS STRING) AS json", "topic").writeStream.format("delta")
    .option("checkpointLocation", "/chk/multi")
    .toTable("bronze.multi"))
