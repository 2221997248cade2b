"""Running revenue per customer over web and store orders, upserted after every micro-batch."""
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
STORE_INPUT = os.environ.get("STREAMLINT_INPUT_STORE", "/data/landing/store_orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/customer_revenue")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/customer_revenue")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"


def upsert(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
web_orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
store_orders = spark.readStream.schema(ORDER_SCHEMA).json(STORE_INPUT)
orders = web_orders.unionByName(store_orders)
revenue = orders.groupBy("customer").agg(F.sum("amount").alias("revenue"))

query = (
    revenue.writeStream.foreachBatch(upsert)
    .outputMode("update")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
