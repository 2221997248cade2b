from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()

RAW_CONF = {"WINDOW": "15 minutes", "WATERMARK": "10 minutes"}
conf = {k.lower(): v for k, v in RAW_CONF.items()}

calls = spark.readStream.format("delta").table("silver.api_calls").withWatermark("ts", conf["watermark"])
counts = calls.groupBy(F.window("ts", conf["window"]), "endpoint").count()
(counts.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/endpoint_counts").toTable("gold.endpoint_counts"))
