"""Device telemetry: clean, dedup and sessionise readings, publish sessions to Kafka.

A class-based job: settings arrive as a dataclass, the job keeps them on `self`, and
reusable steps are plugged in with `DataFrame.transform`.
"""
from dataclasses import dataclass

import pyspark.sql.functions as f
from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class StreamConfig:
    brokers: str
    topic: str
    output_topic: str
    checkpoint: str
    max_offsets: int = 10_000
    session_gap: str = "5 minutes"


CONFIG = StreamConfig(
    "iot-kafka:9092",
    "telemetry.raw",
    output_topic="telemetry.sessions",
    checkpoint="/mnt/checkpoints/telemetry_sessions",
)


def with_clean_device_id(df: DataFrame) -> DataFrame:
    return df.withColumn("device_id", f.lower(f.trim(f.col("device_id"))))


def with_min_battery(df: DataFrame, min_battery: int) -> DataFrame:
    return df.where(f.col("battery") >= min_battery)


class TelemetryJob:
    WATERMARK_DELAY = "2 minutes"
    SCHEMA = "device_id STRING, battery INT, temperature DOUBLE, ts TIMESTAMP"

    def __init__(self, spark: SparkSession, config: StreamConfig):
        self.spark = spark
        self.config = config
        self.min_battery = 5

    def read(self) -> DataFrame:
        return (
            self.spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", self.config.brokers)
            .option("subscribe", self.config.topic)
            .option("maxOffsetsPerTrigger", self.config.max_offsets)
            .load()
            .select(f.from_json(f.col("value").cast("string"), self.SCHEMA).alias("r"))
            .select("r.*")
        )

    def sessions(self, readings: DataFrame) -> DataFrame:
        deduped = (
            readings.transform(with_clean_device_id)
            .transform(with_min_battery, self.min_battery)
            .withWatermark("ts", self.WATERMARK_DELAY)
            .dropDuplicatesWithinWatermark(["device_id", "ts"])
        )
        return deduped.groupBy(
            f.session_window("ts", self.config.session_gap), "device_id"
        ).agg(f.avg("temperature").alias("avg_temp"), f.min("battery").alias("min_battery"))

    def run(self) -> None:
        out = self.sessions(self.read()).select(
            f.col("device_id").alias("key"), f.to_json(f.struct("*")).alias("value")
        )
        (
            out.writeStream.format("kafka")
            .option("kafka.bootstrap.servers", self.config.brokers)
            .option("topic", self.config.output_topic)
            .option("checkpointLocation", self.config.checkpoint)
            .outputMode("update")
            .trigger(availableNow=True)
            .start()
            .awaitTermination()
        )


if __name__ == "__main__":
    TelemetryJob(SparkSession.builder.getOrCreate(), CONFIG).run()
