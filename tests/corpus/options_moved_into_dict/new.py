# Stream loyalty-point events from Event Hubs (Kafka endpoint) into the bronze table.
import os

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, current_timestamp

NAMESPACE = os.environ.get("EH_NAMESPACE", "loyalty-prod")
SASL = os.environ.get("EH_SASL_CONFIG", "")
LAKE = "abfss://lake@loyaltylake.dfs.core.windows.net"

EVENT_HUBS_OPTIONS = {
    "failOnDataLoss": "false",
    "kafka.sasl.jaas.config": SASL,
    "kafka.sasl.mechanism": "PLAIN",
    "kafka.security.protocol": "SASL_SSL",
    "kafka.bootstrap.servers": f"{NAMESPACE}.servicebus.windows.net:9093",
    "startingOffsets": "earliest",
    "subscribe": "loyalty-points",
}

SINK_OPTIONS = {
    "mergeSchema": "true",
    "checkpointLocation": f"{LAKE}/_chk/bronze_points",
}

spark = SparkSession.builder.appName("bronze-loyalty").getOrCreate()

events = (
    spark.readStream.format("kafka")
    .options(**EVENT_HUBS_OPTIONS)
    .load()
    .select(
        col("key").cast("string").alias("member_id"),
        col("value").cast("string").alias("payload"),
        col("timestamp").alias("enqueued_at"),
        current_timestamp().alias("ingested_at"),
    )
)

(
    events.writeStream.format("delta")
    .outputMode("append")
    .options(**SINK_OPTIONS)
    .start(f"{LAKE}/bronze/points")
    .awaitTermination()
)
