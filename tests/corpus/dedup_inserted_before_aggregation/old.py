"""Rides completed per city and 15 minutes, for the ops heatmap."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

RIDE_SCHEMA = "ride_id STRING, city STRING, driver_id STRING, fare DOUBLE, completed_at TIMESTAMP"


def completed_rides(spark):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka.rides:9092")
        .option("subscribe", "rides.completed")
        .option("startingOffsets", "earliest")
        .load()
        .select(F.from_json(F.col("value").cast("string"), RIDE_SCHEMA).alias("r"))
        .select("r.*")
    )


def city_heatmap(rides):
    return (
        rides.withWatermark("completed_at", "20 minutes")
        .groupBy(F.window("completed_at", "15 minutes"), "city")
        .agg(F.count("*").alias("rides"), F.sum("fare").alias("fares"))
    )


def main():
    spark = SparkSession.builder.appName("city-heatmap").getOrCreate()
    rides = completed_rides(spark)
    (
        city_heatmap(rides)
        .writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", "/mnt/ops/_checkpoints/city_heatmap")
        .start("/mnt/ops/gold/city_heatmap")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
