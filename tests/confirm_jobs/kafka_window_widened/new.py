"""Page views per page and 10-minute window from the clickstream topic, appended to Delta."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

CLICK_DDL = "event_id STRING, page STRING, user_id STRING, event_time TIMESTAMP"


def main() -> None:
    spark = SparkSession.builder.appName("page-views").getOrCreate()
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    clicks = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka-web-1:9092")
        .option("subscribe", "web.clicks")
        .load()
        .select(F.from_json(F.col("value").cast("string"), CLICK_DDL).alias("c"))
        .select("c.*")
        .withWatermark("event_time", "10 minutes")
    )
    views = clicks.groupBy(F.window("event_time", "10 minutes"), "page").agg(
        F.count("*").alias("views")
    )
    (
        views.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", "abfss://lake@webstore.dfs.core.windows.net/_chk/page_views")
        .toTable("gold.page_views")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
