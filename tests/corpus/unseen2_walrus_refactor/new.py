import os
import functools
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders").getOrCreate()
DDL = "order_id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"

src = spark.readStream.format("delta").table("silver.orders").withWatermark("ts", "10 minutes")
agg = src.groupBy((w := F.window("ts", "5 minutes")), "region").agg(F.sum("amount").alias("total"))
if (chk := os.environ.get("CHK", "/chk/walrus")):
    agg.writeStream.format("delta").outputMode("append").option("checkpointLocation", chk).toTable("gold.walrus")
