// Databricks notebook source
// MAGIC %md
// MAGIC Device events from the Event Hubs Kafka endpoint into a Delta table.

// COMMAND ----------

import org.apache.spark.sql.functions._

val events = spark.readStream
  .format("kafka")
  .option("kafka.bootstrap.servers", "sensors-ns.servicebus.windows.net:9093")
  .option("subscribe", "device-events")
  .load()
  .select(col("value").cast("string").as("body"), col("timestamp"))

// COMMAND ----------

events.writeStream
  .format("delta")
  .option("checkpointLocation", "/mnt/lake/_checkpoints/device_events")
  .start("/mnt/lake/raw/device_events")
