from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()
from common.metrics import p99

calls = (spark.readStream.format("delta").table("silver.api_calls")
         .withWatermark("ts", "10 minutes"))
lat = (calls.groupBy(F.window("ts", "5 minutes"), "endpoint")
       .agg(p99("latency_ms").alias("latency_pctl")))
(lat.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/latency").toTable("gold.latency"))
