# Unique visitors per article and hour. The CDN log shipper is at-least-once,
# so hits are de-duplicated on request id before counting.
from pyspark.sql import SparkSession
from pyspark.sql.functions import approx_count_distinct, col, count, window

LOG_DIR = "s3://cdn-logs/parsed/json"
LOG_SCHEMA = "request_id STRING, article_id STRING, visitor_id STRING, status INT, served_at TIMESTAMP"

spark = SparkSession.builder.appName("article-visitors").getOrCreate()

hits = (
    spark.readStream.schema(LOG_SCHEMA)
    .option("maxFilesPerTrigger", 500)
    .json(LOG_DIR)
    .where(col("status") < 400)
    .withWatermark("served_at", "1 hour")
)

unique_hits = hits.dropDuplicatesWithinWatermark(["request_id"])

visitors = unique_hits.groupBy(window("served_at", "1 hour"), "article_id").agg(
    count("*").alias("hits"),
    approx_count_distinct("visitor_id").alias("visitors"),
)

(
    visitors.writeStream.format("parquet")
    .outputMode("append")
    .option("path", "s3://newsroom-analytics/article_visitors")
    .option("checkpointLocation", "s3://newsroom-analytics/_chk/article_visitors")
    .start()
    .awaitTermination()
)
