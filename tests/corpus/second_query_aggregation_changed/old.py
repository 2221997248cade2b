"""Checkout service events: a raw silver copy and per-store counts, from one Kafka read."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

BROKERS = os.environ.get("BROKERS", "kafka:9092")
ROOT = os.environ.get("LAKE_ROOT", "s3://retail-lake")

CHECKOUT = StructType([
    StructField("checkout_id", StringType()),
    StructField("store_id", StringType()),
    StructField("terminal_id", StringType()),
    StructField("payment_method", StringType()),
    StructField("basket_value", DoubleType()),
    StructField("checked_out_at", TimestampType()),
])


def read_checkouts(spark):
    kafka_options = {
        "kafka.bootstrap.servers": BROKERS,
        "subscribe": "pos.checkouts",
        "startingOffsets": "earliest",
    }
    return (
        spark.readStream.format("kafka").options(**kafka_options).load()
        .select(F.from_json(F.col("value").cast("string"), CHECKOUT).alias("c"))
        .select("c.*")
    )


def main():
    spark = SparkSession.builder.appName("checkouts").getOrCreate()
    checkouts = read_checkouts(spark)

    # query 1: silver copy
    (
        checkouts.writeStream.format("delta")
        .queryName("silver_checkouts")
        .option("checkpointLocation", f"{ROOT}/_checkpoints/silver_checkouts")
        .start(f"{ROOT}/silver/checkouts")
    )

    # query 2: per-store counts per 10 minutes
    per_store = (
        checkouts.withWatermark("checked_out_at", "30 minutes")
        .groupBy(F.window("checked_out_at", "10 minutes"), "store_id")
        .agg(F.count("*").alias("checkouts"), F.sum("basket_value").alias("revenue"))
    )
    (
        per_store.writeStream.format("delta")
        .queryName("store_checkouts_10m")
        .outputMode("append")
        .option("checkpointLocation", f"{ROOT}/_checkpoints/store_checkouts_10m")
        .start(f"{ROOT}/gold/store_checkouts_10m")
    )

    spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    main()
