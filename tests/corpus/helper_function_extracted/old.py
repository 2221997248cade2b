# Subscription events -> plan changes per day (gold). Written as one long script.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, count, sum as _sum, when, window

spark = (
    SparkSession.builder.appName("plan-changes-daily")
    .config("spark.sql.session.timeZone", "UTC")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("WARN")

# upgrade / downgrade change the MRR by the difference, cancel removes it all

events = (
    spark.readStream.format("delta")
    .option("maxFilesPerTrigger", 50)
    .load("s3://saas-lake/silver/subscription_events")
    .where(col("event_type").isin("upgrade", "downgrade", "cancel"))
    .withColumn("mrr_delta", when(col("event_type") == "cancel", -col("old_mrr")).otherwise(col("new_mrr") - col("old_mrr")))
    .withWatermark("occurred_at", "2 days")
    .dropDuplicates(["event_id", "occurred_at"])
)

daily = events.groupBy(window("occurred_at", "1 day"), "plan", "event_type").agg(
    count("*").alias("events"),
    _sum("mrr_delta").alias("mrr_delta"),
)

daily.writeStream.format("delta").outputMode("append").option(
    "checkpointLocation", "s3://saas-lake/_checkpoints/plan_changes_daily"
).start("s3://saas-lake/gold/plan_changes_daily").awaitTermination()
