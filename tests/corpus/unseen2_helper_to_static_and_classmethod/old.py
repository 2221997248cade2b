import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

WINDOW = "5 minutes"

def parse(raw):
    return raw.select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o")).select("o.*")

def rollup(df, window):
    return (df.withWatermark("event_time", "10 minutes")
            .groupBy(F.window("event_time", window), "region").agg(F.sum("amount").alias("total")))

raw = spark.readStream.format("kafka").option("kafka.bootstrap.servers", BOOTSTRAP).option("subscribe", "shop.orders").load()
out = rollup(parse(raw), WINDOW)
out.writeStream.format("delta").outputMode("append").option("checkpointLocation", "/chk/rollup").start("/lake/gold/rollup")
