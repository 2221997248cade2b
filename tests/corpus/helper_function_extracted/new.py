# Subscription events -> plan changes per day (gold).
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.functions import col, count, sum as _sum, when, window

SILVER_EVENTS = "s3://saas-lake/silver/subscription_events"
GOLD_PLAN_CHANGES = "s3://saas-lake/gold/plan_changes_daily"
CHECKPOINT = "s3://saas-lake/_checkpoints/plan_changes_daily"
PLAN_CHANGE_TYPES = ("upgrade", "downgrade", "cancel")


def read_plan_changes(spark: SparkSession) -> DataFrame:
    return (
        spark.readStream.format("delta")
        .option("maxFilesPerTrigger", 50)
        .load(SILVER_EVENTS)
        .where(col("event_type").isin(*PLAN_CHANGE_TYPES))
    )


def with_mrr_delta(events: DataFrame) -> DataFrame:
    delta = when(col("event_type") == "cancel", -col("old_mrr")).otherwise(col("new_mrr") - col("old_mrr"))
    return events.withColumn("mrr_delta", delta)


def deduplicate(events: DataFrame) -> DataFrame:
    return events.withWatermark("occurred_at", "2 days").dropDuplicates(["event_id", "occurred_at"])


def daily_plan_changes(events: DataFrame) -> DataFrame:
    return events.groupBy(window("occurred_at", "1 day"), "plan", "event_type").agg(
        count("*").alias("events"),
        _sum("mrr_delta").alias("mrr_delta"),
    )


def main() -> None:
    spark = (
        SparkSession.builder.appName("plan-changes-daily")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("WARN")
    changes = deduplicate(with_mrr_delta(read_plan_changes(spark)))
    (
        daily_plan_changes(changes)
        .writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", CHECKPOINT)
        .start(GOLD_PLAN_CHANGES)
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
