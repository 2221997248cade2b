"""Pharmacy dispensing events -> hourly dispensed units per drug and store (gold)."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType, TimestampType

BROKERS = os.environ.get("KAFKA_BROKERS", "kafka-rx:9092")
TOPIC = "rx.dispensed"
CHECKPOINT = "s3://rx-lake/_checkpoints/dispensed_hourly"
OUTPUT = "s3://rx-lake/gold/dispensed_hourly"

DISPENSE = StructType(
    [
        StructField("dispense_id", StringType()),
        StructField("store_id", StringType()),
        StructField("ndc", StringType()),
        StructField("units", IntegerType()),
        StructField("dispensed_at", TimestampType()),
    ]
)


def main():
    spark = SparkSession.builder.appName("dispensed-hourly").getOrCreate()
    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", TOPIC)
        .option("startingOffsets", "earliest")
        .load()
    )
    dispensed = raw.select(F.from_json(F.col("value").cast("string"), DISPENSE).alias("d")).select("d.*")
    hourly = (
        dispensed.withWatermark("dispensed_at", "3 hours")
        .groupBy(F.window("dispensed_at", "1 hour"), "ndc", "store_id")
        .agg(F.sum("units").alias("units"), F.count("dispense_id").alias("fills"))
    )
    (
        hourly.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", CHECKPOINT)
        .trigger(processingTime="2 minutes")
        .start(OUTPUT)
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
