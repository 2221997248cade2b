"""Game telemetry: match results per region and 5 minutes, de-duplicated by match id."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BOOT = "kafka-games:9092"
TOPIC = "games.match_results"
CKPT = "s3://games-lake/_chk/match_stats_5m"
OUT = "s3://games-lake/gold/match_stats_5m"
SCHEMA = "match_id STRING, region STRING, mode STRING, duration_s INT, players INT, ended_at TIMESTAMP"


def get_df(spark):
    df = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BOOT)
        .option("subscribe", TOPIC)
        .load()
    )
    df2 = df.select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("x")).select("x.*")
    return df2


def agg(df):
    df3 = df.withWatermark("ended_at", "10 minutes").dropDuplicates(["match_id", "ended_at"])
    df4 = df3.groupBy(F.window("ended_at", "5 minutes"), "region").agg(
        F.count("*").alias("matches"),
        F.avg("duration_s").alias("avg_duration_s"),
        F.sum("players").alias("players"),
    )
    return df4


def main():
    spark = SparkSession.builder.appName("match-stats").getOrCreate()
    df = get_df(spark)
    res = agg(df)
    q = (
        res.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", CKPT)
        .start(OUT)
    )
    q.awaitTermination()


if __name__ == "__main__":
    main()
