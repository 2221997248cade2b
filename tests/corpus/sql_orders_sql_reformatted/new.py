"""Paid revenue per customer from the shop's orders topic, kept current in the gold layer.

The topic carries JSON orders from the checkout service; finance reads gold.customer_revenue.
"""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = os.environ.get("KAFKA_BROKERS", "kafka-1.shop.internal:9092,kafka-2.shop.internal:9092")
CHECKPOINT = "s3://shop-lake/_checkpoints/gold/customer_revenue"
ORDER_SCHEMA = (
    "order_id STRING, customer_id STRING, country STRING, status STRING, "
    "amount DOUBLE, currency STRING, ts TIMESTAMP"
)

spark = SparkSession.builder.appName("customer-revenue").getOrCreate()
spark.conf.set("spark.sql.shuffle.partitions", "48")

raw = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("subscribe", "shop.orders")
    .option("startingOffsets", "earliest")
    .option("maxOffsetsPerTrigger", 200000)
    .load()
)
orders = (
    raw.select(F.from_json(F.col("value").cast("string"), ORDER_SCHEMA).alias("o"))
    .select("o.*")
    .where(F.col("currency") == "EUR")
)
orders.createOrReplaceTempView("orders")

revenue = spark.sql("""
    -- finance wants paid orders only (ticket FIN-2231)
    select customer_id, SUM(amount) as revenue, COUNT(*) as paid_orders
      from orders
     where status = 'PAID'
     group by customer_id
""")

(
    revenue.writeStream.format("delta")
    .outputMode("complete")
    .option("checkpointLocation", CHECKPOINT)
    .queryName("customer_revenue")
    .toTable("gold.customer_revenue")
)
spark.streams.awaitAnyTermination()
