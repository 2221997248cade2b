"""Exactly-once order feed for Germany: drops re-delivered orders, appends the rest as JSON."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/orders_dedup")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/orders_dedup")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
unique_orders = orders.where(F.col("country") == "DE").dropDuplicates(["order_id"])

query = (
    unique_orders.writeStream.format("json")
    .option("path", OUTPUT)
    .option("checkpointLocation", CHECKPOINT)
    .outputMode("append")
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
