"""Sessions per user of the mobile app, as a Databricks Python script task:

    python sessions.py <env> <checkpoint root>
"""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def settings(argv: list[str]) -> tuple[str, str]:
    """<env> and <checkpoint root>, the task's parameters."""
    return argv[1], argv[2]


env, checkpoint_root = settings(sys.argv)

CLICK_DDL = "user_id STRING, screen STRING, app_version STRING, clicked_at TIMESTAMP"

spark = SparkSession.builder.appName(f"sessions-{env}").getOrCreate()
clicks = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", f"kafka.{env}.internal:9092")
    .option("subscribe", f"{env}.app.clicks")
    .load()
    .select(F.from_json(F.col("value").cast("string"), CLICK_DDL).alias("c"))
    .select("c.*")
    .withWatermark("clicked_at", "10 minutes")
)
sessions = clicks.groupBy(F.session_window("clicked_at", "5 minutes"), "user_id").agg(
    F.count("*").alias("clicks"), F.approx_count_distinct("screen").alias("screens")
)
(
    sessions.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", f"{checkpoint_root}/user_sessions")
    .toTable(f"{env}.gold.user_sessions")
    .awaitTermination()
)
