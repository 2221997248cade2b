"""Order feed without re-deliveries (watermarked dedup), appended to parquet per micro-batch."""
import os

from pyspark.sql import DataFrame, SparkSession

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/orders_dedup")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/orders_dedup")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"


def append_batch(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema(ORDER_SCHEMA).json(INPUT)
unique_orders = orders.withWatermark("ts", "10 seconds").dropDuplicatesWithinWatermark(["order_id"])

query = (
    unique_orders.writeStream.foreachBatch(append_batch)
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
