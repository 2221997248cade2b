"""Archive raw IoT payloads to Parquet, partitioned by ingest date."""
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, current_date

ARCHIVE_ROOT = "s3a://iot-archive/raw"
DATASET = "payloads"
OUTPUT_PATH = f"{ARCHIVE_ROOT}/{DATASET}"

if __name__ == "__main__":
    spark = SparkSession.builder.appName("iot-archive").getOrCreate()

    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "iot-kafka:9092")
        .option("subscribePattern", "iot\\.devices\\..*")
        .load()
        .select(
            col("topic"),
            col("partition"),
            col("offset"),
            col("key").cast("string").alias("device_id"),
            col("value"),
            current_date().alias("ingest_date"),
        )
    )

    writer = raw.writeStream.format("parquet").partitionBy("ingest_date")
    writer = writer.option("path", OUTPUT_PATH)
    writer = writer.option("checkpointLocation", "s3a://iot-archive/_checkpoints/payloads")
    writer.trigger(processingTime="5 minutes").start().awaitTermination()
