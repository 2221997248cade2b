"""Revenue per merchant: Kafka payments -> 10-minute windows -> Delta.

Configuration comes from module constants and environment defaults, the way most
production jobs are written.
"""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    DecimalType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

ENV = os.environ.get("DEPLOY_ENV", "prod")
BROKERS = os.getenv("KAFKA_BROKERS", "kafka-1:9092,kafka-2:9092")
TOPIC_PREFIX = "payments"
TOPIC = TOPIC_PREFIX + "." + ENV
LAKE = f"s3://lake-{ENV}"
CHECKPOINTS = LAKE + "/_checkpoints"
MAX_OFFSETS = 50_000

PAYMENT_SCHEMA = StructType([
    StructField("payment_id", StringType(), False),
    StructField("merchant_id", StringType()),
    StructField("amount", DecimalType(18, 2)),
    StructField("fee_cents", LongType()),
    StructField("paid_at", TimestampType()),
])

KAFKA_OPTIONS = {
    "kafka.bootstrap.servers": BROKERS,
    "subscribe": TOPIC,
    "startingOffsets": "earliest",
    "failOnDataLoss": False,
}


def build_spark():
    spark = (
        SparkSession.builder.appName(f"revenue-{ENV}")
        .config("spark.sql.shuffle.partitions", 48)
        .config("spark.executor.memory", "8g")
        .getOrCreate()
    )
    spark.conf.set("spark.sql.streaming.stateStore.providerClass",
                   "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
    return spark


def main():
    spark = build_spark()
    raw = (
        spark.readStream.format("kafka")
        .options(**KAFKA_OPTIONS)
        .option("maxOffsetsPerTrigger", MAX_OFFSETS)
        .load()
    )
    payments = raw.select(F.from_json(F.col("value").cast("string"), PAYMENT_SCHEMA).alias("p"))
    payments = payments.select("p.*")
    payments = payments.filter(F.col("amount") > 0)
    payments = payments.withColumn("fee", F.col("fee_cents") / 100)
    payments = payments.withWatermark("paid_at", "15 minutes")

    revenue = payments.groupBy(
        F.window("paid_at", "10 minutes"), F.col("merchant_id")
    ).agg(
        F.sum("amount").alias("gross"),
        F.sum("fee").alias("fees"),
        F.count("*").alias("payments"),
    )

    query = (
        revenue.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", f"{CHECKPOINTS}/revenue")
        .trigger(processingTime="1 minute")
        .queryName("revenue_per_merchant")
        .start(LAKE + "/gold/revenue_per_merchant")
    )
    query.awaitTermination()


if __name__ == "__main__":
    main()
