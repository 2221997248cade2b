import sys
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.getOrCreate()
env, checkpoint = sys.argv[1], sys.argv[2]
events = spark.readStream.format("delta").table(f"{env}.silver.events").withWatermark("ts", "10 minutes")
out = events.groupBy("user_id").agg(F.count("*").alias("n"))
out.writeStream.format("delta").outputMode("update").option("checkpointLocation", checkpoint).toTable(f"{env}.gold.counts")
