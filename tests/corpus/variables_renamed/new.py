"""Game telemetry: match results per region and 5 minutes, de-duplicated by match id."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

KAFKA_BOOTSTRAP_SERVERS = "kafka-games:9092"
MATCH_RESULTS_TOPIC = "games.match_results"
MATCH_STATS_CHECKPOINT = "s3://games-lake/_chk/match_stats_5m"
MATCH_STATS_PATH = "s3://games-lake/gold/match_stats_5m"
MATCH_RESULT_DDL = "match_id STRING, region STRING, mode STRING, duration_s INT, players INT, ended_at TIMESTAMP"


def read_match_results(spark):
    kafka_records = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", KAFKA_BOOTSTRAP_SERVERS)
        .option("subscribe", MATCH_RESULTS_TOPIC)
        .load()
    )
    payload = F.from_json(F.col("value").cast("string"), MATCH_RESULT_DDL).alias("match")
    match_results = kafka_records.select(payload).select("match.*")
    return match_results


def match_stats_per_region(match_results):
    unique_matches = match_results.withWatermark("ended_at", "10 minutes").dropDuplicates(
        ["match_id", "ended_at"]
    )
    stats = unique_matches.groupBy(F.window("ended_at", "5 minutes"), "region").agg(
        F.count("*").alias("matches"),
        F.avg("duration_s").alias("avg_duration_s"),
        F.sum("players").alias("players"),
    )
    return stats


def main():
    spark = SparkSession.builder.appName("match-stats").getOrCreate()
    match_results = read_match_results(spark)
    stats = match_stats_per_region(match_results)
    stats_query = (
        stats.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", MATCH_STATS_CHECKPOINT)
        .start(MATCH_STATS_PATH)
    )
    stats_query.awaitTermination()


if __name__ == "__main__":
    main()
