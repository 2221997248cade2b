# Clickstream sessions written as Parquet for the reporting team.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
lake = spark.conf.get("spark.clicks.lake_root")

clicks = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", "broker:9092")
          .option("subscribe", "clicks")
          .load()
          .select(F.col("value").cast("string").alias("raw"), "timestamp"))

(clicks.writeStream.format("parquet")
    .option("path", f"{lake}/silver/clicks_v2")
    .option("checkpointLocation", f"{lake}/_checkpoints/clicks")
    .start())
