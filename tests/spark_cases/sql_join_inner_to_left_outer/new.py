"""Orders joined with their payments (paid within 5 seconds) in Spark SQL, appended per micro-batch."""
import os

from pyspark.sql import DataFrame, SparkSession

ORDERS = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
PAYMENTS = os.environ.get("STREAMLINT_INPUT_PAYMENTS", "/data/landing/payments")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/paid_orders")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/paid_orders")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"
PAYMENT_SCHEMA = "payment_id LONG, paid_order_id LONG, paid LONG, pts TIMESTAMP"


def append_batch(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
spark.readStream.schema(ORDER_SCHEMA).json(ORDERS).withWatermark("ts", "10 seconds").createOrReplaceTempView("orders")
(
    spark.readStream.schema(PAYMENT_SCHEMA).json(PAYMENTS).withWatermark("pts", "10 seconds")
    .createOrReplaceTempView("payments")
)
paid_orders = spark.sql("""
    SELECT o.*, p.*
    FROM orders o
    LEFT OUTER JOIN payments p
      ON o.order_id = p.paid_order_id
     AND p.pts >= o.ts AND p.pts <= o.ts + INTERVAL 5 SECONDS
""")

query = (
    paid_orders.writeStream.foreachBatch(append_batch)
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
