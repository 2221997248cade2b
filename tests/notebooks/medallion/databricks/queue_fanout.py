# Databricks notebook source
# MAGIC %md
# MAGIC # Landing queues to the raw zone
# MAGIC
# MAGIC Starts one Auto Loader stream per storage queue named in the `queues` widget. Each stream
# MAGIC gets its own checkpoint under `checkpoint_base`, so a queue can be added later without
# MAGIC touching the others.

# COMMAND ----------

dbutils.widgets.text("queues", "landing-q0,landing-q1", "Queue names, comma separated")
dbutils.widgets.text("checkpoint_base", "abfss://lake@sensorlake.dfs.core.windows.net/_checkpoints/raw", "Checkpoint base")
dbutils.widgets.text("output_dir", "abfss://lake@sensorlake.dfs.core.windows.net/raw/readings", "Output folder")
dbutils.widgets.text("trigger_interval", "30 seconds", "Trigger interval")
dbutils.widgets.text("max_files", "500", "Files per micro-batch")

# COMMAND ----------

from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

queues = [q.strip() for q in dbutils.widgets.get("queues").split(",") if q.strip()]
checkpoint_base = dbutils.widgets.get("checkpoint_base")
output_dir = dbutils.widgets.get("output_dir")
trigger_interval = dbutils.widgets.get("trigger_interval")
max_files = int(dbutils.widgets.get("max_files"))

connection = dbutils.secrets.get("sensor-lake", "queue-connection-string")

reading_schema = StructType([
    StructField("device_id", StringType()),
    StructField("site_id", StringType()),
    StructField("event_time", TimestampType()),
    StructField("temperature", DoubleType()),
    StructField("humidity", DoubleType()),
])

# COMMAND ----------

def start_queue_stream(queue, schema, source_dir, checkpoint_dir, target_dir, interval):
    raw = (spark.readStream
           .format("cloudFiles")
           .option("cloudFiles.format", "json")
           .option("cloudFiles.useNotifications", "true")
           .option("cloudFiles.connectionString", connection)
           .option("cloudFiles.queueName", queue)
           .option("cloudFiles.maxFilesPerTrigger", max_files)
           .schema(schema)
           .load(source_dir))
    return (raw
            .withColumn("ingest_date", F.to_date(F.current_timestamp()))
            .withColumn("source_queue", F.lit(queue))
            .writeStream
            .format("delta")
            .queryName(f"raw_{queue}")
            .partitionBy("ingest_date")
            .option("checkpointLocation", checkpoint_dir)
            .trigger(processingTime=interval)
            .start(target_dir))

# COMMAND ----------

streams = []
for queue in queues:
    streams.append(start_queue_stream(queue, reading_schema,
                                      "abfss://landing@sensorlake.dfs.core.windows.net/readings",
                                      f"{checkpoint_base}/{queue}", f"{output_dir}/{queue}",
                                      trigger_interval))

# COMMAND ----------

for s in streams:
    print(s.name, s.status["message"])
