"""Revenue per customer in 10-second event-time windows (Spark SQL), appended once a window closes."""
import os

from pyspark.sql import SparkSession

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/windowed_revenue")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/windowed_revenue")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"

spark = SparkSession.builder.getOrCreate()
spark.readStream.schema(ORDER_SCHEMA).json(INPUT).withWatermark("ts", "10 seconds").createOrReplaceTempView("orders")

windowed = spark.sql("""
    SELECT window.start AS window_start,
           window.end AS window_end,
           customer,
           sum(amount) AS revenue
    FROM orders
    GROUP BY window(ts, '20 seconds'), customer
""")

query = (
    windowed.writeStream.format("parquet")
    .option("path", OUTPUT)
    .option("checkpointLocation", CHECKPOINT)
    .outputMode("append")
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
