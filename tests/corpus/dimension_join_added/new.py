"""Publish order events for the notification service (Kafka -> Kafka), with the
customer's language and loyalty tier from the customer dimension."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = "kafka-shop:9092"
ORDER_DDL = "order_id STRING, customer_id STRING, total DOUBLE, status STRING, updated_at TIMESTAMP"


def order_events(spark):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", "shop.order_status")
        .load()
        .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
        .select("o.*")
    )


def customers(spark):
    # static Delta table, re-read by every micro-batch
    return spark.read.table("shop.dim_customers").select("customer_id", "language", "tier")


def to_notifications(orders):
    return orders.select(
        F.col("customer_id").alias("key"),
        F.to_json(F.struct("order_id", "customer_id", "status", "total", "language", "tier")).alias("value"),
    )


def main():
    spark = SparkSession.builder.appName("order-notifications").getOrCreate()
    enriched = order_events(spark).join(F.broadcast(customers(spark)), "customer_id", "left")
    (
        to_notifications(enriched)
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("topic", "notify.order_status")
        .option("checkpointLocation", "/chk/shop/order_notifications")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
