"""Payments platform streaming jobs: ingest, fraud features, settlement joins, audit feed.

Runs on the shared streaming cluster; configured through environment variables so the same
code deploys to staging and production.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import col, expr
from pyspark.sql.functions import window as w
from pyspark.sql.types import (
    DecimalType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

ENV = os.environ.get("DEPLOY_ENV", "prod")
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "kafka-1.payments:9092,kafka-2.payments:9092")
LAKE = os.getenv("LAKE_ROOT", "abfss://lake@payments.dfs.core.windows.net")
CHECKPOINTS = f"{LAKE}/_checkpoints/{ENV}"

PAYMENT_SCHEMA = StructType([
    StructField("payment_id", StringType(), False),
    StructField("merchant_id", StringType()),
    StructField("card_hash", StringType()),
    StructField("amount", DecimalType(18, 2)),
    StructField("currency", StringType()),
    StructField("status", StringType()),
    StructField("event_time", TimestampType()),
])

SETTLEMENT_SCHEMA = "settlement_id STRING, payment_ref STRING, settled_amount DECIMAL(18,2), settled_at TIMESTAMP"

KAFKA_COMMON = {
    "kafka.bootstrap.servers": BOOTSTRAP,
    "kafka.security.protocol": "SASL_SSL",
    "failOnDataLoss": "false",
    "startingOffsets": "earliest",
}


@dataclass
class StreamSettings:
    max_offsets: int = 500_000
    watermark: str = "15 minutes"
    trigger: str = "30 seconds"


def build_session(app: str) -> SparkSession:
    builder = (
        SparkSession.builder.appName(app)
        .config("spark.sql.shuffle.partitions", "128")
        .config("spark.sql.streaming.stateStore.providerClass",
                "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
        .config("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true")
    )
    return builder.getOrCreate()


def kafka_stream(spark: SparkSession, topic: str, settings: StreamSettings) -> DataFrame:
    reader = spark.readStream.format("kafka").options(**KAFKA_COMMON)
    reader = reader.option("subscribe", topic)
    reader = reader.option("maxOffsetsPerTrigger", settings.max_offsets)
    return reader.load()


def parse_payments(raw: DataFrame) -> DataFrame:
    parsed = raw.select(
        F.from_json(col("value").cast("string"), PAYMENT_SCHEMA).alias("p"),
        col("timestamp").alias("kafka_ts"),
    )
    payments = parsed.select("p.*", "kafka_ts")
    payments = payments.where(col("status").isin("AUTHORIZED", "CAPTURED"))
    return payments.withColumn("amount_eur", expr("amount * 1.0"))


def merchant_velocity(payments: DataFrame, settings: StreamSettings) -> DataFrame:
    return (
        payments.withWatermark("event_time", settings.watermark)
        .groupBy(w("event_time", "5 minutes", "1 minute"), "merchant_id")
        .agg(
            F.count("*").alias("tx_count"),
            F.max("amount").alias("tx_amount"),
            F.approx_count_distinct("card_hash").alias("distinct_cards"),
        )
    )


def card_first_seen(payments: DataFrame) -> DataFrame:
    return (
        payments.withWatermark("event_time", "2 hours")
        .dropDuplicatesWithinWatermark(["card_hash"])
        .select("card_hash", "merchant_id", "event_time")
    )


def settlements(spark: SparkSession) -> DataFrame:
    return (
        spark.readStream.format("delta")
        .option("maxFilesPerTrigger", 100)
        .load(f"{LAKE}/bronze/settlements")
        .selectExpr("settlement_id", "payment_ref", "settled_amount", "settled_at")
        .withWatermark("settled_at", "1 hour")
    )


def settled_payments(payments: DataFrame, settled: DataFrame) -> DataFrame:
    joined = payments.withWatermark("event_time", "1 hour").join(
        settled,
        expr("payment_id = payment_ref AND settled_at BETWEEN event_time AND event_time + interval 3 days"),
        "inner",
    )
    return joined.select("payment_id", "merchant_id", "amount", "settled_amount", "settled_at")


def upsert_velocity(batch_df: DataFrame, batch_id: int) -> None:
    target = DeltaTable.forPath(batch_df.sparkSession, f"{LAKE}/gold/merchant_velocity")
    (
        target.alias("t")
        .merge(batch_df.alias("s"), "t.merchant_id = s.merchant_id AND t.window = s.window")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )


class PaymentsPipeline:
    """Owns the session and starts every query of the payments platform."""

    QUERY_PREFIX = "payments"

    def __init__(self, spark: SparkSession, settings: StreamSettings | None = None) -> None:
        self.spark = spark
        self.settings = settings or StreamSettings()
        self.topic = f"payments.{ENV}.events"

    def checkpoint(self, name: str) -> str:
        return f"{CHECKPOINTS}/{self.QUERY_PREFIX}_{name}"

    def payments(self) -> DataFrame:
        return parse_payments(kafka_stream(self.spark, self.topic, self.settings))

    def start_velocity(self):
        return (
            merchant_velocity(self.payments(), self.settings)
            .writeStream.queryName(f"{self.QUERY_PREFIX}_velocity")
            .foreachBatch(upsert_velocity)
            .outputMode("update")
            .option("checkpointLocation", self.checkpoint("velocity"))
            .trigger(processingTime=self.settings.trigger)
            .start()
        )

    def start_first_seen(self):
        writer = card_first_seen(self.payments()).writeStream.format("delta")
        writer = writer.option("checkpointLocation", self.checkpoint("first_seen"))
        writer = writer.outputMode("append").partitionBy("merchant_id")
        return writer.toTable("payments.silver.card_first_seen")

    def start_settlement(self):
        joined = settled_payments(self.payments(), settlements(self.spark))
        return (
            joined.writeStream.format("delta")
            .option("checkpointLocation", self.checkpoint("settlement"))
            .option("mergeSchema", "true")
            .trigger(availableNow=True)
            .start(f"{LAKE}/silver/settled_payments")
        )

    def start_alerts(self):
        alerts = (
            self.payments()
            .where(col("amount") > 5_000)
            .select(F.to_json(F.struct("payment_id", "merchant_id", "amount")).alias("value"))
        )
        return (
            alerts.writeStream.format("kafka")
            .option("kafka.bootstrap.servers", BOOTSTRAP)
            .option("topic", f"payments.{ENV}.alerts")
            .option("checkpointLocation", self.checkpoint("alerts"))
            .start()
        )

    def run(self) -> None:
        self.start_velocity()
        self.start_first_seen()
        self.start_settlement()
        self.start_alerts()
        self.spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    PaymentsPipeline(build_session("payments-streaming")).run()
