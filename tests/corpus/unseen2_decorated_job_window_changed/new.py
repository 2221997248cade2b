import os
import functools
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders").getOrCreate()
DDL = "order_id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"


def with_retries(n):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return fn(*args, **kwargs)
                except Exception:
                    if attempt == n - 1:
                        raise
        return wrapper
    return deco


@functools.lru_cache(maxsize=None)
def source():
    return (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "kafka:9092")
            .option("subscribe", "orders").load()
            .select(F.from_json(F.col("value").cast("string"), DDL).alias("o")).select("o.*"))


@with_retries(3)
def start(window="10 minutes"):
    agg = (source().withWatermark("ts", "10 minutes")
           .groupBy(F.window("ts", window), "region").agg(F.sum("amount").alias("total")))
    return (agg.writeStream.format("delta").outputMode("append")
            .option("checkpointLocation", "/chk/orders_win").start("/lake/orders_win"))


start().awaitTermination()
