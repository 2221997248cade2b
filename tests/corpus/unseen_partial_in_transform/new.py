import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

from functools import partial

def windowed_revenue(df, window):
    return (df.withWatermark("event_time", "10 minutes")
              .groupBy(F.window("event_time", window), "customer_id")
              .agg(F.sum("amount").alias("revenue")))

src = spark.readStream.format("delta").load("/lake/silver/orders")
out = src.transform(partial(windowed_revenue, window="10 minutes"))
(out.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/rev")
    .start("/lake/gold/rev"))
