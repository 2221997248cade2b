# Databricks notebook source
from pyspark.sql import functions as F

# COMMAND ----------

def get_params():
    return {name: dbutils.widgets.get(name) for name in ("catalog", "landing_path", "checkpoint_root")}

# COMMAND ----------

def autoloader(path, schema_location):
    opts = {
        "cloudFiles.format": "json",
        "cloudFiles.schemaLocation": schema_location,
        "cloudFiles.inferColumnTypes": "true",
    }
    return spark.readStream.format("cloudFiles").options(**opts).load(path)

# COMMAND ----------

p = get_params()
events = autoloader(p["landing_path"] + "/events", p["checkpoint_root"] + "/schemas/events")
bronze = events.select("*", F.col("_metadata.file_path").alias("source_file"), F.current_timestamp().alias("ingested_at"))
(bronze.writeStream
    .option("checkpointLocation", p["checkpoint_root"] + "/bronze_events")
    .option("mergeSchema", "true")
    .trigger(availableNow=True)
    .toTable(p["catalog"] + ".bronze.events"))
