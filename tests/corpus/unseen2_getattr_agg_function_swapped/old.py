from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()

AGG_FN = "sum"
calls = spark.readStream.format("delta").table("silver.api_calls").withWatermark("ts", "10 minutes")
stats = calls.groupBy(F.window("ts", "5 minutes"), "endpoint").agg(getattr(F, AGG_FN)("latency_ms").alias("latency"))
(stats.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/endpoint_latency").toTable("gold.endpoint_latency"))
