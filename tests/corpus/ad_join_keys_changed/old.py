# Join ad impressions with conversions reported by the advertiser pixel, by ad id.
# Both sides are Delta tables written by the ingest jobs.
from pyspark.sql import SparkSession
import pyspark.sql.functions as f

LAKE = "gs://adtech-lake"


def impressions(spark):
    return (
        spark.readStream.format("delta")
        .load(f"{LAKE}/bronze/impressions")
        .select("ad_id", "creative_id", "user_key", "served_at")
    )


def conversions(spark):
    return (
        spark.readStream.format("delta")
        .load(f"{LAKE}/bronze/conversions")
        .select("ad_id", "order_value", "converted_at")
    )


def main():
    spark = SparkSession.builder.appName("conversion-join").getOrCreate()
    joined = impressions(spark).join(conversions(spark), ["ad_id"])
    enriched = joined.withColumn("latency_s", f.unix_timestamp("converted_at") - f.unix_timestamp("served_at"))
    (
        enriched.writeStream.format("delta")
        .option("checkpointLocation", f"{LAKE}/_checkpoints/conversion_join")
        .outputMode("append")
        .start(f"{LAKE}/silver/conversions_by_ad")
    )
    spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    main()
