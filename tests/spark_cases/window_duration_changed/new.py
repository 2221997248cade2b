"""Revenue per customer in 20-second event-time windows, appended once a window closes."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/windowed_revenue")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/windowed_revenue")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
windowed = (
    orders.withWatermark("ts", "10 seconds")
    .groupBy(F.window("ts", "20 seconds"), "customer")
    .agg(F.sum("amount").alias("revenue"))
    .select(
        F.col("window.start").alias("window_start"),
        F.col("window.end").alias("window_end"),
        "customer",
        "revenue",
    )
)

query = (
    windowed.writeStream.format("parquet")
    .option("path", OUTPUT)
    .option("checkpointLocation", CHECKPOINT)
    .outputMode("append")
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
