# Databricks notebook source
# MAGIC %run ./_common $project="sensor-lakehouse"

# COMMAND ----------

# MAGIC %run ./mount-landing

# COMMAND ----------

class ReadingFeed:
    """Copies one month of recorded sensor files into the landing folder per call."""

    def __init__(self, source="/databricks-datasets/iot-stream/data-device/"):
        self.source = source
        self.target = f"{lab.folders.landing}/readings"
        self.month = 1

    def next_month(self):
        if self.month > 12:
            print("All twelve months have landed")
            return
        name = f"2023-{self.month:02}.json"
        dbutils.fs.cp(f"{self.source}/{name}", f"{self.target}/{name}")
        self.month += 1

# COMMAND ----------

lab.use_schema()
checkpoint_root = f"{lab.folders.base}/_checkpoints"
landing_dir = f"{lab.folders.landing}/readings"
feed = ReadingFeed()
feed.next_month()

spark.conf.set("spark.sql.shuffle.partitions", 8)
