"""Exactly-once order events: drop Kafka re-deliveries by event id, forward to the orders topic."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = os.environ["KAFKA_BROKERS"]  # set by the deployment; no default on purpose
ORDER_DDL = "event_id STRING, order_id STRING, customer_id STRING, total DOUBLE, created_at TIMESTAMP"

spark = SparkSession.builder.getOrCreate()
events = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("subscribe", "orders.raw")
    .option("kafka.security.protocol", "SASL_SSL")
    .load()
    .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
    .select("o.*")
)
unique = events.dropDuplicates(["event_id", "order_id"])

query = (
    unique.select(F.col("order_id").alias("key"), F.to_json(F.struct("*")).alias("value"))
    .writeStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("topic", "orders.clean")
    .option("checkpointLocation", "/dbfs/checkpoints/orders_clean")
    .start()
)
query.awaitTermination()
