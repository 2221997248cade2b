"""Gold: add-to-cart conversions per product per hour. The clickstream reader is shared
with the other web jobs and lives in the pipelines package."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from pipelines.sources import read_clickstream

CHECKPOINT = "s3://web-lake/_checkpoints/cart_conversions_hourly"


def main():
    spark = SparkSession.builder.appName("cart-conversions").getOrCreate()
    clicks = read_clickstream(spark, env="prod")
    carts = clicks.where(F.col("event") == "add_to_cart")
    hourly = (
        carts.withWatermark("event_time", "1 hour")
        .groupBy(F.window("event_time", "1 hour"), "product_id")
        .agg(F.count("*").alias("adds"), F.countDistinct("session_id").alias("sessions"))
    )
    (
        hourly.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", CHECKPOINT)
        .trigger(processingTime="10 minutes")
        .start("s3://web-lake/gold/cart_conversions_hourly")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
