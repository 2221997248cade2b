import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

WINDOW = "5 minutes"
# late override kept for the dashboards that read WINDOW
WINDOW = "10 minutes"

def revenue(df, window=WINDOW):
    return (df.withWatermark("event_time", "10 minutes")
              .groupBy(F.window("event_time", window), "customer_id")
              .agg(F.sum("amount").alias("revenue")))

src = spark.readStream.format("delta").load("/lake/silver/orders")
(revenue(src).writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/revenue")
    .start("/lake/gold/revenue"))
