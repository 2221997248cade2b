# Event counts per key from the regional landing zones.
# Runs on Spark 4.2 with source evolution enabled, so every source is named.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

EVENT_DDL = "id LONG, key STRING, value LONG, ts TIMESTAMP"
LANDING = "s3://events/landing"
CHECKPOINT = "s3://events/_chk/regional_counts"


def build_spark() -> SparkSession:
    return (
        SparkSession.builder.appName("regional-counts")
        .config("spark.sql.streaming.queryEvolution.enableSourceEvolution", "true")
        .getOrCreate()
    )


def regional(spark: SparkSession, region: str):
    return (
        spark.readStream.schema(EVENT_DDL)
        .name(f"events_{region}")
        .option("maxFilesPerTrigger", 1000)
        .json(f"{LANDING}/{region}")
    )


def main() -> None:
    spark = build_spark()
    eu = regional(spark, "eu")

    counts = eu.groupBy("key").agg(F.count("*").alias("events"), F.sum("value").alias("total"))

    (
        counts.writeStream.format("delta")
        .outputMode("complete")
        .option("checkpointLocation", CHECKPOINT)
        .start("s3://events/gold/regional_counts")
    )
    spark.streams.awaitAnyTermination()


if __name__ == "__main__":
    main()
