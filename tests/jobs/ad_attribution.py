"""Ad attribution: impressions joined with clicks (stream-stream) and campaigns (static).

Three queries over the same two Kafka streams, each joining them a different way.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import expr

spark = SparkSession.builder.getOrCreate()

BROKERS = "ads-kafka:9092"

impressions = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("subscribePattern", r"ads\.impressions\..*")
    .option("maxOffsetsPerTrigger", 200_000)
    .load()
    .selectExpr("CAST(key AS STRING) AS imp_ad_id", "timestamp AS imp_time")
    .withWatermark("imp_time", "2 hours")
)
clicks = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("assign", '{"ads.clicks": [0, 1, 2, 3]}')
    .load()
    .selectExpr("CAST(key AS STRING) AS click_ad_id", "timestamp AS click_time")
    .withWatermark("click_time", "3 hours")
)
campaigns = spark.read.format("delta").load("/mnt/dim/campaigns")

# Query 1: a click is attributed to the impression it follows within the hour.
attributed = impressions.join(
    clicks,
    expr("""
        click_ad_id = imp_ad_id AND
        click_time >= imp_time AND
        click_time <= imp_time + interval 1 hour
    """),
    "leftOuter",
)
enriched = attributed.join(campaigns, F.col("imp_ad_id") == F.col("ad_id"), "left")
(
    enriched.writeStream.format("delta")
    .option("checkpointLocation", "/mnt/chk/attributed")
    .start("/mnt/gold/attributed")
)

# Query 2: the same pair, joined on an equal key after renaming both sides.
imps = impressions.withColumnRenamed("imp_ad_id", "ad_id")
clks = clicks.withColumnRenamed("click_ad_id", "ad_id")
matched = clks.join(imps, ["ad_id"], how="inner")
matched.writeStream.format("delta").option("checkpointLocation", "/mnt/chk/matched").start(
    "/mnt/gold/matched")

# Query 3: a column condition and a full outer join.
everything = impressions.join(
    clicks, F.col("imp_ad_id") == F.col("click_ad_id"), how="full_outer"
)
everything.writeStream.format("delta").option("checkpointLocation", "/mnt/chk/all").start(
    "/mnt/gold/all")
