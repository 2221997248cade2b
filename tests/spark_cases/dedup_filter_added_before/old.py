"""Exactly-once order feed: drops re-delivered orders, appends the rest as JSON files."""
import os

from pyspark.sql import SparkSession

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/orders_dedup")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/orders_dedup")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
unique_orders = orders.dropDuplicates(["order_id"])

query = (
    unique_orders.writeStream.format("json")
    .option("path", OUTPUT)
    .option("checkpointLocation", CHECKPOINT)
    .outputMode("append")
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
