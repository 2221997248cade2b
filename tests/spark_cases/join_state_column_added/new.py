"""The same join, with a column computed on the orders side before it (a wider join state row)."""
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

ORDERS = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
PAYMENTS = os.environ.get("STREAMLINT_INPUT_PAYMENTS", "/data/landing/payments")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/paid_orders")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/paid_orders")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"
PAYMENT_SCHEMA = "payment_id LONG, paid_order_id LONG, paid LONG, pts TIMESTAMP"


def append_batch(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
orders = (
    spark.readStream.schema(ORDER_SCHEMA).json(ORDERS).withWatermark("ts", "10 seconds")
    .withColumn("big", F.col("amount") > 20)
)
payments = (
    spark.readStream.schema(PAYMENT_SCHEMA).json(PAYMENTS).withWatermark("pts", "10 seconds")
)
paid_orders = orders.join(
    payments,
    F.expr("order_id = paid_order_id AND pts >= ts AND pts <= ts + interval 5 seconds"),
    "inner",
)

query = (
    paid_orders.writeStream.foreachBatch(append_batch)
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
