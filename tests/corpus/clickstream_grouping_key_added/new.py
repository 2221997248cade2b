"""Page views per page, country and minute, from the web clickstream topic.

Deployed as a Databricks job; writes into the gold layer.
"""
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, count, from_json, window as w

KAFKA = {
    "kafka.bootstrap.servers": "b-1.msk.internal:9092,b-2.msk.internal:9092",
    "kafka.security.protocol": "SSL",
    "subscribe": "web.clickstream",
    "startingOffsets": "latest",
}

CLICK_DDL = """
    event_id STRING,
    session_id STRING,
    page STRING,
    country STRING,
    referrer STRING,
    event_time TIMESTAMP
"""


def build(spark):
    clicks = (
        spark.readStream.format("kafka")
        .options(**KAFKA)
        .load()
        .select(from_json(col("value").cast("string"), CLICK_DDL).alias("c"))
        .select("c.*")
    )
    views = (
        clicks.withWatermark("event_time", "10 minutes")
        .groupBy(w(col("event_time"), "1 minute"), col("page"), col("country"))
        .agg(count("*").alias("views"))
    )
    return views


def main():
    spark = SparkSession.builder.getOrCreate()
    (
        build(spark)
        .writeStream.outputMode("append")
        .option("checkpointLocation", "/mnt/chk/gold/page_views_per_minute")
        .toTable("gold.page_views_per_minute")
    )
    spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    main()
