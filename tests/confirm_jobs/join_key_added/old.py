"""Attribute clicks to impressions (stream-stream join) for the CTR reports."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = "kafka-ads-1.unreachable.invalid:9092,kafka-ads-2.unreachable.invalid:9092"
IMPRESSION_DDL = "impression_id STRING, ad_id STRING, placement STRING, impression_time TIMESTAMP"
CLICK_DDL = "click_id STRING, click_ad_id STRING, click_placement STRING, click_time TIMESTAMP"


def read_topic(spark, topic, ddl):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", topic)
        .load()
        .select(F.from_json(F.col("value").cast("string"), ddl).alias("r"))
        .select("r.*")
    )


def main():
    spark = SparkSession.builder.appName("click-attribution").getOrCreate()
    impressions = read_topic(spark, "ads.impressions", IMPRESSION_DDL).withWatermark(
        "impression_time", "2 hours")
    clicks = read_topic(spark, "ads.clicks", CLICK_DDL).withWatermark("click_time", "3 hours")
    attributed = impressions.join(
        clicks,
        F.expr(
            """
            click_ad_id = ad_id AND
            click_time >= impression_time AND
            click_time <= impression_time + interval 1 hour
            """
        ),
    )
    (
        attributed.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", "s3://ads-lake/_checkpoints/click_attribution")
        .start("s3://ads-lake/silver/click_attribution")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
