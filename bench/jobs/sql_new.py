"""Benchmark job written mostly in Spark SQL: clickstream sessions, ad attribution, spend.

Streams are registered as temp views; every shaping step is `spark.sql(...)` over views:
a parsed events view, a windowed aggregation, a stream-stream join with a time bound, a
static dimension join, a HAVING filter, and a CTE. The DataFrame API only reads and writes.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

CHECKPOINTS = "abfss://lake@acct.dfs.core.windows.net/_checkpoints"
BROKERS = "kafka-1:9092,kafka-2:9092"

spark = (
    SparkSession.builder.appName("ads-sql")
    .config("spark.sql.shuffle.partitions", "64")
    .config("spark.sql.streaming.stateStore.providerClass",
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
    .getOrCreate()
)


def kafka(topic: str):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", 250000)
        .load()
    )


kafka("ad-impressions").createOrReplaceTempView("impressions_raw")
kafka("ad-clicks").createOrReplaceTempView("clicks_raw")
kafka("page-views").createOrReplaceTempView("views_raw")

spark.sql("""
    CREATE OR REPLACE TEMP VIEW impressions AS
    SELECT get_json_object(CAST(value AS STRING), '$.impression_id') AS impression_id,
           get_json_object(CAST(value AS STRING), '$.ad_id') AS imp_ad_id,
           get_json_object(CAST(value AS STRING), '$.campaign') AS campaign,
           CAST(get_json_object(CAST(value AS STRING), '$.cost') AS DECIMAL(12, 4)) AS cost,
           timestamp AS imp_time
    FROM impressions_raw
    WHERE value IS NOT NULL
""")

spark.sql("""
    CREATE OR REPLACE TEMP VIEW clicks AS
    SELECT get_json_object(CAST(value AS STRING), '$.click_id') AS click_id,
           get_json_object(CAST(value AS STRING), '$.ad_id') AS click_ad_id,
           get_json_object(CAST(value AS STRING), '$.user_id') AS user_id,
           timestamp AS click_time
    FROM clicks_raw
    WHERE value IS NOT NULL
""")

spark.sql("""
    CREATE OR REPLACE TEMP VIEW page_views AS
    SELECT get_json_object(CAST(value AS STRING), '$.user_id') AS user_id,
           get_json_object(CAST(value AS STRING), '$.url') AS url,
           CAST(get_json_object(CAST(value AS STRING), '$.dwell_ms') AS BIGINT) AS dwell_ms,
           timestamp AS view_time
    FROM views_raw
""")

watermarked_impressions = spark.table("impressions").withWatermark("imp_time", "2 hours")
watermarked_impressions.createOrReplaceTempView("impressions_wm")
spark.table("clicks").withWatermark("click_time", "3 hours").createOrReplaceTempView("clicks_wm")
spark.table("page_views").withWatermark("view_time", "30 minutes") \
    .createOrReplaceTempView("page_views_wm")

# -- query 1: attributed clicks (stream-stream join with a time bound) ----------------------

attributed = spark.sql("""
    SELECT i.impression_id, i.campaign, i.cost, c.click_id, c.user_id, c.click_time
    FROM impressions_wm i
    JOIN clicks_wm c
      ON c.click_ad_id = i.imp_ad_id
     AND c.click_time >= i.imp_time
     AND c.click_time <= i.imp_time + INTERVAL 90 MINUTES
""")
(
    attributed.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", f"{CHECKPOINTS}/attributed_clicks")
    .trigger(processingTime="1 minute")
    .toTable("ads.attributed_clicks")
)

# -- query 2: campaign spend per 10-minute window, enriched with a static dimension ----------

spark.sql("""
    CREATE OR REPLACE TEMP VIEW campaign_spend AS
    SELECT window(imp_time, '10 minutes') AS window, campaign,
           SUM(cost) AS spend, count(*) AS impressions,
           approx_count_distinct(imp_ad_id) AS ads
    FROM impressions_wm
    GROUP BY window(imp_time, '10 minutes'), campaign
    HAVING count(*) > 10
""")
spend = spark.sql("""
    SELECT s.window, s.campaign, s.spend, s.impressions, s.ads, d.advertiser, d.budget
    FROM campaign_spend s
    LEFT JOIN ads.campaign_dim d ON s.campaign = d.campaign
""")
(
    spend.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", f"{CHECKPOINTS}/campaign_spend")
    .toTable("ads.campaign_spend")
)

# -- query 3: engaged sessions (session windows over page views) -----------------------------

sessions = spark.sql("""
    WITH long_views AS (
        SELECT user_id, url, dwell_ms, view_time
        FROM page_views_wm
        WHERE dwell_ms >= 3000 AND url NOT LIKE '%/healthz%'
    )
    SELECT session_window(view_time, '30 minutes') AS session, user_id,
           count(*) AS views, SUM(dwell_ms) AS dwell, max(view_time) AS last_seen
    FROM long_views
    GROUP BY 1, user_id
""")
(
    sessions.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", f"{CHECKPOINTS}/engaged_sessions")
    .toTable("ads.engaged_sessions")
)

# -- query 4: deduplicated clicks for the billing feed ---------------------------------------

billing = spark.sql("""
    SELECT DISTINCT click_id, user_id, click_ad_id, click_time, 'v2' AS feed
    FROM clicks_wm
    WHERE user_id IS NOT NULL
""")
(
    billing.selectExpr("click_id AS id", "to_json(struct(*)) AS value")
    .writeStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("topic", "billing-clicks")
    .option("checkpointLocation", f"{CHECKPOINTS}/billing_clicks")
    .start()
)

# -- query 5: per-user click counts, hourly, with a filter written as a SQL string ------------

hourly = (
    spark.table("clicks_wm")
    .where("click_ad_id IS NOT NULL AND user_id <> 'anonymous'")
    .groupBy("user_id")
    .agg({"click_id": "count"})
)
hourly.createOrReplaceTempView("hourly_clicks")
heavy = spark.sql("SELECT user_id, `count(click_id)` AS clicks FROM hourly_clicks")
(
    heavy.writeStream.format("delta")
    .outputMode("update")
    .option("checkpointLocation", f"{CHECKPOINTS}/heavy_clickers")
    .foreachBatch(lambda batch, epoch: batch.write.mode("append").saveAsTable("ads.heavy"))
    .start()
)
