"""Hourly spend per campaign from the ad events topic (Kafka -> Delta, foreachBatch append)."""
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

SPEND = StructType([
    StructField("campaign_id", StringType()),
    StructField("cost", DoubleType()),
    StructField("spent_at", TimestampType()),
])
CHECKPOINT = "s3://ads/_chk/campaign_spend"
TABLE_PATH = "s3://ads/gold/campaign_spend"


def read_spend(spark: SparkSession) -> DataFrame:
    raw = (
        spark.readStream.format("kafka")
        .options(**{"kafka.bootstrap.servers": "kafka.unreachable.invalid:9092",
                    "subscribe": "ads.spend"})
        .load()
    )
    return raw.select(F.from_json(F.col("value").cast("string"), SPEND).alias("e")).select("e.*")


def hourly(events: DataFrame) -> DataFrame:
    return (
        events.withWatermark("spent_at", "30 minutes")
        .groupBy(F.window(F.col("spent_at"), "1 hour"), F.col("campaign_id"))
        .agg(F.sum(F.col("cost")).alias("spend"))
    )


def append_to_delta(batch: DataFrame, batch_id: int) -> None:
    batch.write.format("delta").mode("append").save(TABLE_PATH)


def main() -> None:
    spark = SparkSession.builder.appName("campaign-spend").getOrCreate()
    query = (
        read_spend(spark).transform(hourly).writeStream.foreachBatch(append_to_delta)
        .option("checkpointLocation", CHECKPOINT)
        .start()
    )
    query.awaitTermination()


if __name__ == "__main__":
    main()
