"""Mobile app events: drop the retries the SDK sends, then land in silver."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ENV = os.environ.get("DEPLOY_ENV", "prod")
BRONZE = f"s3://app-{ENV}-lake/bronze/app_events"
SILVER = f"s3://app-{ENV}-lake/silver/app_events"
CHECKPOINT = f"s3://app-{ENV}-lake/_checkpoints/silver_app_events"

DEDUP_KEYS = ["event_id", "client_ts"]


def main():
    spark = SparkSession.builder.appName(f"silver-app-events-{ENV}").getOrCreate()

    events = spark.readStream.format("delta").load(BRONZE)

    cleaned = (
        events
        .withColumn("client_ts", F.to_timestamp("client_ts_raw"))
        .withWatermark("client_ts", "24 hours")
        .dropDuplicates(DEDUP_KEYS)
        .drop("client_ts_raw")
    )

    (
        cleaned.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", CHECKPOINT)
        .option("mergeSchema", "true")
        .start(SILVER)
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
