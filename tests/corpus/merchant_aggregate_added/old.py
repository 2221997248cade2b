# Hourly order stats per merchant. Bronze orders are a Delta table fed by the ingest job.
from pyspark.sql import SparkSession
import pyspark.sql.functions as f

SOURCE_TABLE = "bronze.orders"
TARGET_TABLE = "gold.merchant_hourly"
CHECKPOINT_DIR = "/Volumes/main/gold/checkpoints/merchant_hourly"

spark = (
    SparkSession.builder
    .appName("merchant-hourly")
    .config("spark.sql.shuffle.partitions", "48")
    .getOrCreate()
)

orders = (
    spark.readStream
    .option("ignoreDeletes", "true")
    .table(SOURCE_TABLE)
    .where(f.col("status") != "CANCELLED")
)

hourly = (
    orders
    .withWatermark("created_at", "2 hours")
    .groupBy(f.window("created_at", "1 hour").alias("hour"), "merchant_id")
    .agg(
        f.count("order_id").alias("orders"),
        f.sum("total_cents").alias("gross_cents"),
    )
)

(
    hourly.writeStream
    .outputMode("append")
    .option("checkpointLocation", CHECKPOINT_DIR)
    .toTable(TARGET_TABLE)
)
spark.streams.awaitAnyTermination()
