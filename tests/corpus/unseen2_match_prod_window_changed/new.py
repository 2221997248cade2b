import os
import functools
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders").getOrCreate()
DDL = "order_id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"

ENV = os.environ.get("DEPLOY_ENV", "prod")

match ENV:
    case "dev":
        WINDOW = "1 minute"
    case "prod" | "staging":
        WINDOW = "15 minutes"
    case _:
        raise SystemExit(f"unknown env {ENV}")

src = spark.readStream.format("delta").table("silver.orders").withWatermark("ts", "10 minutes")
agg = src.groupBy(F.window("ts", WINDOW), "region").agg(F.sum("amount").alias("total"))
agg.writeStream.format("delta").outputMode("append").option("checkpointLocation", "/chk/match").toTable("gold.match")
