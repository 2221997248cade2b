"""Pharmacy dispensing events -> hourly dispensed units per drug and store (gold)."""
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType, TimestampType

DISPENSE = StructType(
    [
        StructField("dispense_id", StringType()),
        StructField("store_id", StringType()),
        StructField("ndc", StringType()),
        StructField("units", IntegerType()),
        StructField("dispensed_at", TimestampType()),
    ]
)


class DispensedHourlyJob:
    def __init__(self, spark: SparkSession, lake: str = "s3://rx-lake") -> None:
        self.spark = spark
        self.brokers = os.environ.get("KAFKA_BROKERS", "kafka-rx:9092")
        self.topic = "rx.dispensed"
        self.checkpoint = f"{lake}/_checkpoints/dispensed_hourly"
        self.output = f"{lake}/gold/dispensed_hourly"
        self.watermark = "3 hours"

    def read(self) -> DataFrame:
        raw = (
            self.spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", self.brokers)
            .option("subscribe", self.topic)
            .option("startingOffsets", "earliest")
            .load()
        )
        return raw.select(F.from_json(F.col("value").cast("string"), DISPENSE).alias("d")).select("d.*")

    def transform(self, dispensed: DataFrame) -> DataFrame:
        return (
            dispensed.withWatermark("dispensed_at", self.watermark)
            .groupBy(F.window("dispensed_at", "1 hour"), "ndc", "store_id")
            .agg(F.sum("units").alias("units"), F.count("dispense_id").alias("fills"))
        )

    def run(self):
        return (
            self.transform(self.read())
            .writeStream.format("delta")
            .outputMode("append")
            .option("checkpointLocation", self.checkpoint)
            .trigger(processingTime="2 minutes")
            .start(self.output)
        )


if __name__ == "__main__":
    DispensedHourlyJob(SparkSession.builder.appName("dispensed-hourly").getOrCreate()).run().awaitTermination()
