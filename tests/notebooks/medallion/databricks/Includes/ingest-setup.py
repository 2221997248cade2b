# Databricks notebook source
# MAGIC %run ./_common

# COMMAND ----------

def autoload_to_table(source_dir, file_format, table_name, checkpoint_dir):
    """Load whatever new files sit in source_dir into table_name, then stop."""
    query = (spark.readStream
        .format("cloudFiles")
        .option("cloudFiles.format", file_format)
        .option("cloudFiles.inferColumnTypes", "true")
        .option("cloudFiles.schemaLocation", f"{checkpoint_dir}/_schema")
        .load(source_dir)
        .writeStream
        .option("checkpointLocation", checkpoint_dir)
        .option("mergeSchema", "true")
        .trigger(availableNow=True)
        .toTable(table_name))
    query.awaitTermination()
    return query

# COMMAND ----------

lab.use_schema()
checkpoint_root = f"{lab.folders.base}/_checkpoints"
landing_dir = f"{lab.folders.landing}/readings"

dbutils.fs.cp("/databricks-datasets/iot-stream/data-device/", landing_dir, True)
autoload_to_table(landing_dir, "json", "readings_bronze", f"{checkpoint_root}/readings_bronze")
