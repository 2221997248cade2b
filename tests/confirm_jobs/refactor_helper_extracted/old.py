"""Hourly spend per campaign from the ad events topic (Kafka -> Delta, foreachBatch append)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("campaign-spend").getOrCreate()
raw = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka.unreachable.invalid:9092")
    .option("subscribe", "ads.spend")
    .load()
)
events = raw.select(
    F.from_json(F.col("value").cast("string"),
                "campaign_id STRING, cost DOUBLE, spent_at TIMESTAMP").alias("e")
).select("e.*")
spend = (
    events.withWatermark("spent_at", "30 minutes")
    .groupBy(F.window("spent_at", "1 hour"), "campaign_id")
    .agg(F.sum("cost").alias("spend"))
)


def write(batch, batch_id):
    batch.write.format("delta").mode("append").save("s3://ads/gold/campaign_spend")


spend.writeStream.foreachBatch(write).option(
    "checkpointLocation", "s3://ads/_chk/campaign_spend").start().awaitTermination()
