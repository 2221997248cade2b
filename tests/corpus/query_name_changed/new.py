# Bronze ingestion of HR badge swipes; the query name shows up in the Spark UI and alerts.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, to_date

SWIPE_DDL = "badge_id STRING, door_id STRING, site STRING, granted BOOLEAN, swiped_at TIMESTAMP"
QUERY_NAME = "facilities__bronze__badge_swipes"  # naming convention for the alerting rules

spark = (
    SparkSession.builder.appName("badge-swipes")
    .config("spark.sql.streaming.metricsEnabled", "true")
    .getOrCreate()
)

swipes = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "facilities-kafka:9092")
    .option("subscribe", "facilities.badge_swipes")
    .load()
    .select(from_json(col("value").cast("string"), SWIPE_DDL).alias("s"))
    .select("s.*")
    .withColumn("swipe_date", to_date("swiped_at"))
)

(
    swipes.writeStream.queryName(QUERY_NAME)
    .format("delta")
    .partitionBy("swipe_date")
    .option("checkpointLocation", "/mnt/facilities/_chk/badge_swipes")
    .start("/mnt/facilities/bronze/badge_swipes")
)

for q in spark.streams.active:
    print(q.name, q.id, q.status["message"])
spark.streams.awaitAnyTermination()
