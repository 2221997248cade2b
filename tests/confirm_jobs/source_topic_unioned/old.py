"""Orders per country from the web shop's topic, emitted to Kafka for the dashboard."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ORDER_DDL = "order_id STRING, country STRING, total DOUBLE, created_at TIMESTAMP"


def orders(spark, topic):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "broker.unreachable.invalid:9092")
        .option("subscribe", topic)
        .load()
        .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
        .select("o.*")
    )


spark = SparkSession.builder.getOrCreate()
all_orders = orders(spark, "shop.web.orders")
per_country = all_orders.groupBy("country").agg(F.count("*").alias("orders"))
(
    per_country.select(F.col("country").alias("key"), F.to_json(F.struct("*")).alias("value"))
    .writeStream.format("kafka")
    .outputMode("update")
    .option("kafka.bootstrap.servers", "broker.unreachable.invalid:9092")
    .option("topic", "dash.orders_per_country")
    .option("checkpointLocation", "/mnt/checkpoints/orders_per_country")
    .start()
    .awaitTermination()
)
