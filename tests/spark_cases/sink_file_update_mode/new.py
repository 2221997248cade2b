"""Large orders, appended to the lake as they arrive."""
import os

from pyspark.sql import SparkSession

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/large_orders")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/large_orders")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
large = orders.where("amount > 10").select("order_id", "customer", "amount")

query = (
    large.writeStream.format("parquet")
    .outputMode("update")
    .option("path", OUTPUT)
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
