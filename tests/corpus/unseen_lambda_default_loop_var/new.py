import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

WINDOWS = {"5m": "10 minutes", "1h": "1 hour"}
src = (spark.readStream.format("delta").load("/lake/silver/orders")
       .withWatermark("event_time", "10 minutes"))
for name, dur in WINDOWS.items():
    build = lambda df, d=dur: df.groupBy(F.window("event_time", d)).agg(F.count("*").alias("n"))
    (build(src).writeStream.format("delta").outputMode("append")
        .option("checkpointLocation", f"/chk/counts_{name}")
        .start(f"/lake/gold/counts_{name}"))
