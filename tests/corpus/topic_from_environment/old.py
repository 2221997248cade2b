# Shipping notifications: fan-in from the carrier webhook topic into silver.
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = os.environ.get("KAFKA_BROKERS", "kafka:9092")
CHECKPOINT = os.environ.get("CHECKPOINT", "/chk/silver/carrier_notifications")
NOTIFICATION_DDL = "carrier STRING, tracking_number STRING, event STRING, occurred_at TIMESTAMP"


def main():
    spark = SparkSession.builder.appName("carrier-notifications").getOrCreate()
    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", "carriers.webhooks")
        .load()
    )
    notifications = raw.select(
        F.from_json(F.col("value").cast("string"), NOTIFICATION_DDL).alias("n")
    ).select("n.*")
    (
        notifications.writeStream.format("delta")
        .option("checkpointLocation", CHECKPOINT)
        .start("/lake/silver/carrier_notifications")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
