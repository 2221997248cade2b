"""Food delivery: order volume and revenue per restaurant and 30 minutes."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ORDER_DDL = "order_id STRING, restaurant_id STRING, city STRING, subtotal DOUBLE, tip DOUBLE, placed_at TIMESTAMP"


def main():
    spark = SparkSession.builder.appName("restaurant-volume").getOrCreate()
    orders = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("subscribe", "delivery.orders")
        .load()
        .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
        .select("o.*")
        .withWatermark("placed_at", "1 hour")
    )
    volume = orders.groupBy(F.window("placed_at", "30 minutes"), "restaurant_id", "city").agg(
        F.count("order_id").alias("orders"),
        F.sum("subtotal").alias("revenue"),
        F.avg("tip").alias("avg_tip"),
    )
    (
        volume.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", "/chk/delivery/restaurant_volume")
        .start("/lake/gold/restaurant_volume")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
