import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

import sys
MODE = sys.argv[1]

events = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", BOOTSTRAP)
          .option("subscribe", "orders").load()
          .select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("o")).select("o.*")
          .withWatermark("event_time", "10 minutes"))

if MODE == "by_customer":
    agg = events.groupBy(F.window("event_time", "5 minutes"), "customer_id").agg(F.sum("amount"))
else:
    agg = events.groupBy(F.window("event_time", "5 minutes")).agg(F.sum("amount"))

(agg.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/revenue")
    .toTable("gold.revenue"))
