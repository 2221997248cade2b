from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()

CHECKPOINTS = Path("/mnt/checkpoints")
CHK = CHECKPOINTS / "endpoint_counts_v2"
calls = spark.readStream.format("delta").table("silver.api_calls").withWatermark("ts", "10 minutes")
counts = calls.groupBy(F.window("ts", "5 minutes"), "endpoint").count()
(counts.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", str(CHK))
    .toTable("gold.endpoint_counts"))
