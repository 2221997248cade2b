"""Page views per page and 10-minute window, from the bronze clicks table to the gold layer.

Bronze is written by the collector ingest job; dashboards read gold.page_views_10m.
"""
from pyspark.sql import SparkSession

LAKE = "abfss://lake@clickstore.dfs.core.windows.net"
CHECKPOINT = f"{LAKE}/_checkpoints/gold/page_views_10m"

spark = SparkSession.builder.appName("page-views-10m").getOrCreate()

(
    spark.readStream.table("bronze.web_clicks")
    .withWatermark("event_ts", "15 minutes")
    .createOrReplaceTempView("clicks_raw")
)

spark.sql("""
    CREATE OR REPLACE TEMP VIEW page_clicks AS
    SELECT session_id,
           user_id,
           lower(page_path) AS page,
           referrer,
           event_ts
    FROM clicks_raw
    WHERE bot_score < 0.8
""")

page_views = spark.sql("""
    SELECT window(event_ts, '10 minutes') AS win,
           page,
           count(*) AS views,
           approx_count_distinct(user_id) AS visitors
    FROM page_clicks
    GROUP BY window(event_ts, '10 minutes'), page
""")

(
    page_views.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(processingTime="1 minute")
    .toTable("gold.page_views_10m")
)
spark.streams.awaitAnyTermination()
