"""Revenue per customer from the order feed, aggregated in Spark SQL over a temp view."""
import os

from pyspark.sql import DataFrame, SparkSession

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/customer_revenue_sql")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/customer_revenue_sql")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"


def upsert(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
spark.readStream.schema(ORDER_SCHEMA).json(INPUT).createOrReplaceTempView("orders")

revenue = spark.sql("""
    SELECT customer,
           max(amount) AS revenue
    FROM orders
    GROUP BY customer
""")

query = (
    revenue.writeStream.foreachBatch(upsert)
    .outputMode("update")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
