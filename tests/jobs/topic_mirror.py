"""Mirror every raw topic to its own bronze table, one query per topic.

`main` is never called in this file: the scheduler imports the module and calls it.
`backfill` is another entry point, called with a date we cannot know.
"""
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

TOPICS = ["orders", "payments", "refunds"]
BRONZE = "/mnt/bronze"
CHECKPOINTS = "/mnt/checkpoints/mirror"


def raw_topic(spark: SparkSession, topic: str) -> DataFrame:
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "mirror-kafka:9092")
        .option("subscribe", f"raw.{topic}")
        .option("startingOffsets", "earliest")
        .load()
    )


def to_bronze(df: DataFrame) -> DataFrame:
    return df.select(
        F.col("key").cast("string").alias("key"),
        F.col("value").cast("string").alias("payload"),
        F.col("timestamp").alias("kafka_ts"),
    )


def start_mirror(spark: SparkSession, topic: str):
    return (
        to_bronze(raw_topic(spark, topic))
        .writeStream.format("delta")
        .queryName(f"mirror_{topic}")
        .option("checkpointLocation", f"{CHECKPOINTS}/{topic}")
        .start(f"{BRONZE}/{topic}")
    )


def main():
    spark = SparkSession.builder.appName("topic-mirror").getOrCreate()
    for topic in TOPICS:
        start_mirror(spark, topic)
    spark.streams.awaitAnyTermination()


def backfill(spark, since):
    (
        raw_topic(spark, "orders")
        .where(F.col("timestamp") >= since)
        .writeStream.format("delta")
        .option("checkpointLocation", f"{CHECKPOINTS}/backfill")
        .trigger(availableNow=True)
        .start(f"{BRONZE}/orders_backfill")
    )
