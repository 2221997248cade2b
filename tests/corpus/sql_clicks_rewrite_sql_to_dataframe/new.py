"""Page views per page and 10-minute window, from the bronze clicks table to the gold layer.

Bronze is written by the collector ingest job; dashboards read gold.page_views_10m.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

LAKE = "abfss://lake@clickstore.dfs.core.windows.net"
CHECKPOINT = f"{LAKE}/_checkpoints/gold/page_views_10m"

spark = SparkSession.builder.appName("page-views-10m").getOrCreate()

(
    spark.readStream.table("bronze.web_clicks")
    .withWatermark("event_ts", "15 minutes")
    .createOrReplaceTempView("clicks_raw")
)

page_clicks = (
    spark.table("clicks_raw")
    .where(F.col("bot_score") < 0.8)
    .select("session_id", "user_id", F.lower("page_path").alias("page"), "referrer", "event_ts")
)

page_views = (
    page_clicks.groupBy(F.window("event_ts", "10 minutes").alias("win"), "page")
    .agg(F.count("*").alias("views"), F.approx_count_distinct("user_id").alias("visitors"))
)

(
    page_views.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(processingTime="1 minute")
    .toTable("gold.page_views_10m")
)
spark.streams.awaitAnyTermination()
