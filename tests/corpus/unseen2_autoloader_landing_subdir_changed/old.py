# Databricks notebook source
from pyspark.sql import functions as F

catalog = dbutils.widgets.get("catalog")
landing = dbutils.widgets.get("landing_path")
checkpoint_root = dbutils.widgets.get("checkpoint_root")

events = (spark.readStream.format("cloudFiles")
          .option("cloudFiles.format", "json")
          .option("cloudFiles.schemaLocation", f"{checkpoint_root}/schemas/events")
          .option("cloudFiles.inferColumnTypes", "true")
          .load(f"{landing}/events"))

bronze = events.select("*", F.col("_metadata.file_path").alias("source_file"), F.current_timestamp().alias("ingested_at"))

(bronze.writeStream
    .option("checkpointLocation", f"{checkpoint_root}/bronze_events")
    .option("mergeSchema", "true")
    .trigger(availableNow=True)
    .toTable(f"{catalog}.bronze.events"))
