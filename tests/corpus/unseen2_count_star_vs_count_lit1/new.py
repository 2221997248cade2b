from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()

clicks = spark.readStream.format("delta").table("silver.clicks").withWatermark("ts", "10 minutes")
agg = clicks.groupBy(F.window("ts", "5 minutes"), "page").agg(F.count(F.lit(1)).alias("views"))
agg.writeStream.format("delta").outputMode("append").option("checkpointLocation", "/chk/views").toTable("gold.views")
