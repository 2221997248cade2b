import os
import functools
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders").getOrCreate()
DDL = "order_id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"


def kafka_source(*topics, **extra):
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", "kafka:9092")
              .option("subscribe", ",".join(topics)))
    for k, v in extra.items():
        reader = reader.option(k, v)
    return reader.load()


raw = kafka_source(*["orders", "refunds"], **{"maxOffsetsPerTrigger": "5000"})
raw.writeStream.format("delta").option("checkpointLocation", "/chk/star").start("/lake/star")
