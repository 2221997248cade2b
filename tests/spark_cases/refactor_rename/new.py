"""Running revenue per customer, upserted into the lake after every micro-batch.

Refactored: the pipeline is built by small functions and the names say what they hold.
"""
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

LANDING_DIR = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT_DIR = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/customer_revenue")
LAKE_TABLE_DIR = os.environ.get("STREAMLINT_OUTPUT", "/lake/customer_revenue")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"


def read_orders(session: SparkSession) -> DataFrame:
    return session.readStream.schema(ORDER_SCHEMA).json(LANDING_DIR)


def revenue_per_customer(order_stream: DataFrame) -> DataFrame:
    return order_stream.groupBy("customer").agg(F.sum("amount").alias("revenue"))


def write_micro_batch(micro_batch: DataFrame, epoch_id: int) -> None:
    micro_batch.write.mode("append").parquet(LAKE_TABLE_DIR)


def main() -> None:
    session = SparkSession.builder.getOrCreate()
    customer_revenue = revenue_per_customer(read_orders(session))
    streaming_query = (
        customer_revenue.writeStream.foreachBatch(write_micro_batch)
        .outputMode("update")
        .option("checkpointLocation", CHECKPOINT_DIR)
        .trigger(availableNow=True)
        .start()
    )
    streaming_query.awaitTermination()


if __name__ == "__main__":
    main()
