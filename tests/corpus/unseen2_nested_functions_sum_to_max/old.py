import os
import functools
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders").getOrCreate()
DDL = "order_id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"


def make_job(kind):
    def reader():
        return spark.readStream.format("delta").table("silver.orders")

    def aggregate(df):
        def metric():
            return F.sum("amount").alias("metric")
        return df.groupBy("region").agg(metric())

    return aggregate(reader())


out = make_job("revenue")
out.writeStream.format("delta").outputMode("update").option("checkpointLocation", "/chk/nested").toTable("gold.nested")
