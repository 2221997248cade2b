"""Exactly-once-ish email sends: drop duplicate send requests within 2 hours."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType, TimestampType

SEND_REQUEST = StructType(
    [
        StructField("message_id", StringType()),
        StructField("template", StringType()),
        StructField("recipient", StringType()),
        StructField("requested_at", TimestampType()),
    ]
)


def requests(spark):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("subscribe", "notify.email_requests")
        .load()
        .select(
            F.from_json(F.col("value").cast("string"), SEND_REQUEST).alias("r"),
            F.col("timestamp").alias("kafka_time"),
        )
        .select("r.*", "kafka_time")
    )


def main():
    spark = SparkSession.builder.appName("email-dedup").getOrCreate()
    unique = requests(spark).withWatermark("requested_at", "2 hours").dropDuplicatesWithinWatermark(["message_id"])
    (
        unique.select(F.col("message_id").alias("key"), F.to_json(F.struct("*")).alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("topic", "notify.email_send")
        .option("checkpointLocation", "/chk/notify/email_dedup")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
