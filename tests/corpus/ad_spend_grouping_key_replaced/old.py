"""Running ad spend, upserted into a Delta table that the billing service polls."""
from delta.tables import DeltaTable
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

SPEND_TABLE = "billing.running_spend"
CHECKPOINT = "dbfs:/checkpoints/billing/running_spend"
SPEND_SCHEMA = "impression_id STRING, campaign_id STRING, advertiser_id STRING, cost_micros LONG, served_at TIMESTAMP"


def upsert_spend(batch_df, batch_id):
    target = DeltaTable.forName(batch_df.sparkSession, SPEND_TABLE)
    (
        target.alias("t")
        .merge(batch_df.alias("s"), "t.campaign_id = s.campaign_id")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )


def running_spend(spark):
    served = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("subscribe", "ads.served")
        .load()
        .select(F.from_json(F.col("value").cast("string"), SPEND_SCHEMA).alias("e"))
        .select("e.*")
    )
    return served.groupBy("campaign_id").agg(
        F.sum("cost_micros").alias("spend_micros"),
        F.count(F.lit(1)).alias("impressions"),
    )


def main():
    spark = SparkSession.builder.appName("running-spend").getOrCreate()
    (
        running_spend(spark)
        .writeStream.foreachBatch(upsert_spend)
        .outputMode("update")
        .option("checkpointLocation", CHECKPOINT)
        .trigger(processingTime="30 seconds")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
