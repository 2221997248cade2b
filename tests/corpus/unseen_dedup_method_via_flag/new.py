import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

WITHIN_WATERMARK = True
src = (spark.readStream.format("delta").load("/lake/silver/orders")
       .withWatermark("event_time", "1 hour"))
dedup = src.dropDuplicatesWithinWatermark if WITHIN_WATERMARK else src.dropDuplicates
out = dedup(["order_id"])
(out.writeStream.format("delta")
    .option("checkpointLocation", "/chk/dedup")
    .toTable("silver.orders_dedup"))
