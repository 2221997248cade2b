# Databricks notebook source
# Orders per customer and hour, from the orders topic into a Delta table.
from pyspark.sql import functions as F

root = dbutils.widgets.get("checkpoint_root")
brokers = dbutils.widgets.get("brokers")

orders = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", brokers)
          .option("subscribe", "orders")
          .load()
          .select(F.from_json(F.col("value").cast("string"),
                              "customer_id STRING, amount DOUBLE, ts TIMESTAMP").alias("o"))
          .select("o.*"))

hourly = (orders.withWatermark("ts", "2 hours")
          .groupBy(F.window("ts", "1 hour"), "customer_id")
          .agg(F.sum("amount").alias("total")))

(hourly.writeStream
    .outputMode("append")
    .option("checkpointLocation", f"{root}/orders_hourly_v2")
    .toTable("gold.orders_hourly"))
