# Stream loyalty-point events from Event Hubs (Kafka endpoint) into the bronze table.
import os

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, current_timestamp

NAMESPACE = os.environ.get("EH_NAMESPACE", "loyalty-prod")
SASL = os.environ.get("EH_SASL_CONFIG", "")

spark = SparkSession.builder.appName("bronze-loyalty").getOrCreate()

events = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", f"{NAMESPACE}.servicebus.windows.net:9093")
    .option("subscribe", "loyalty-points")
    .option("kafka.security.protocol", "SASL_SSL")
    .option("kafka.sasl.mechanism", "PLAIN")
    .option("kafka.sasl.jaas.config", SASL)
    .option("startingOffsets", "earliest")
    .option("failOnDataLoss", "false")
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
    .option("checkpointLocation", "abfss://lake@loyaltylake.dfs.core.windows.net/_chk/bronze_points")
    .option("mergeSchema", "true")
    .outputMode("append")
    .start("abfss://lake@loyaltylake.dfs.core.windows.net/bronze/points")
    .awaitTermination()
)
