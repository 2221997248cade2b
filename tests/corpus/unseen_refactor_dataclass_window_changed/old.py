import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

orders = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", BOOTSTRAP)
          .option("subscribe", "orders")
          .option("startingOffsets", "earliest")
          .option("maxOffsetsPerTrigger", 50000)
          .load()
          .select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("o"))
          .select("o.*")
          .withWatermark("event_time", "15 minutes"))
revenue = (orders.groupBy(F.window(F.col("event_time"), "10 minutes"), F.col("customer_id"))
           .agg(F.sum("amount").alias("revenue"), F.count("*").alias("orders")))
(revenue.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/revenue_10m")
    .trigger(processingTime="1 minute")
    .toTable("gold.revenue_10m"))
