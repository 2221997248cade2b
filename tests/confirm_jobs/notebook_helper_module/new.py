# Databricks notebook source
# MAGIC %md Revenue per store, channel and hour, for the store dashboard.

# COMMAND ----------

from pyspark.sql import functions as F

from order_parsing import parse_orders

brokers = dbutils.secrets.get("shop", "kafka-brokers")
raw = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", brokers)
    .option("subscribe", "shop.orders")
    .load()
)

# COMMAND ----------

revenue = (
    parse_orders(raw)
    .groupBy(F.window("created_at", "1 hour"), "store_id", "channel")
    .agg(F.sum("total").alias("revenue"))
)

# COMMAND ----------

(
    revenue.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", "/Volumes/shop/gold/_checkpoints/store_revenue")
    .toTable("shop.gold.store_revenue")
)
