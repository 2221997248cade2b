"""Card payments: per-merchant spend in 5-minute tumbling windows, for the fraud dashboards."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    DoubleType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "kafka-0.payments:9092")
CHECKPOINTS = os.environ.get("CHECKPOINT_ROOT", "s3://payments-lake/_checkpoints")
GOLD = "s3://payments-lake/gold"

PAYMENT_SCHEMA = StructType(
    [
        StructField("payment_id", StringType(), False),
        StructField("merchant_id", StringType(), False),
        StructField("card_bin", StringType()),
        StructField("amount", DoubleType()),
        StructField("currency", StringType()),
        StructField("authorized_at", TimestampType()),
    ]
)


def main() -> None:
    spark = SparkSession.builder.appName("merchant-spend-windows").getOrCreate()

    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BOOTSTRAP)
        .option("subscribe", "payments.authorized")
        .option("startingOffsets", "earliest")
        .load()
    )

    payments = raw.select(
        F.from_json(F.col("value").cast("string"), PAYMENT_SCHEMA).alias("p")
    ).select("p.*")

    spend = (
        payments.withWatermark("authorized_at", "1 hour")  # acquirer batches arrive late
        .groupBy(F.window("authorized_at", "5 minutes"), "merchant_id")
        .agg(
            F.sum("amount").alias("total_amount"),
            F.count("*").alias("payments"),
        )
    )

    (
        spend.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", f"{CHECKPOINTS}/merchant_spend_windows")
        .queryName("merchant_spend_windows")
        .start(f"{GOLD}/merchant_spend_windows")
    )
    spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    main()
