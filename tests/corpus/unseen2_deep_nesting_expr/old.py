import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("big").getOrCreate()

src = spark.readStream.format("delta").table("silver.orders").withWatermark("ts", "10 minutes")
agg = src.groupBy(F.window("ts", "5 minutes"), "region").agg(F.sum("amount").alias("total"))
agg.writeStream.format("delta").outputMode("append").option("checkpointLocation", "/chk/x").toTable("gold.x")
