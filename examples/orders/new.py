"""Orders pipeline: Kafka -> parsed events -> windowed revenue (Delta) and a dedup'd audit feed."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType, TimestampType

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
TOPIC = "orders.v1"
CHECKPOINT_ROOT = os.environ.get("CHECKPOINT_ROOT", "s3://lake/checkpoints")
LAKE = "s3://lake/tables"

ORDER_SCHEMA = StructType([
    StructField("order_id", StringType()),
    StructField("customer_id", StringType()),
    StructField("amount", DoubleType()),
    StructField("quantity", LongType()),
    StructField("event_time", TimestampType()),
])

KAFKA_OPTIONS = {
    "kafka.bootstrap.servers": BOOTSTRAP,
    "subscribe": TOPIC,
    "startingOffsets": "earliest",
    "failOnDataLoss": "false",
}


def build_session() -> SparkSession:
    return (
        SparkSession.builder.appName("orders-pipeline")
        .config("spark.sql.shuffle.partitions", "32")
        .config("spark.sql.streaming.stateStore.providerClass",
                "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
        .getOrCreate()
    )


def read_orders(spark):
    raw = spark.readStream.format("kafka").options(**KAFKA_OPTIONS).load()
    parsed = raw.select(F.from_json(F.col("value").cast("string"), ORDER_SCHEMA).alias("o"))
    return parsed.select("o.*").where(F.col("amount") > 0).where(F.col("customer_id").isNotNull())


def revenue_per_customer(orders):
    return (
        orders.withWatermark("event_time", "10 minutes")
        .groupBy(F.window("event_time", "10 minutes"), "customer_id")
        .agg(F.sum("amount").alias("revenue"), F.count("*").alias("orders"), F.max("amount").alias("largest_order"))
    )


def main():
    spark = build_session()
    orders = read_orders(spark)

    revenue = revenue_per_customer(orders)
    (
        revenue.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", f"{CHECKPOINT_ROOT}/revenue")
        .trigger(availableNow=True)
        .queryName("revenue_per_customer")
        .start(f"{LAKE}/revenue_per_customer")
    )

    audit = orders.withWatermark("event_time", "1 hour").dropDuplicates(["order_id", "event_time"])
    audit_query = audit.writeStream.format("parquet").option("path", f"{LAKE}/orders_audit")
    audit_query = audit_query.option("checkpointLocation", f"{CHECKPOINT_ROOT}/audit")
    audit_query.outputMode("append").start()

    spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    main()
