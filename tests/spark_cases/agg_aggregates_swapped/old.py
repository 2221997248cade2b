"""Running revenue and order count per customer, upserted after every micro-batch."""
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/customer_revenue")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/customer_revenue")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"


def upsert(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
revenue = orders.groupBy("customer").agg(
    F.sum("amount").alias("revenue"), F.count("*").alias("orders")
)

query = (
    revenue.writeStream.foreachBatch(upsert)
    .outputMode("update")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
