# Databricks notebook source
# Shared by the notebooks of the sensor lakehouse: who runs them, their schema and folders.

import re

# COMMAND ----------

class LakeFolders:
    def __init__(self, base):
        self.base = base
        self.landing = f"{base}/landing"
        self.tables = f"{base}/tables"


class SensorLab:
    def __init__(self, project="sensor-lakehouse"):
        self.user = spark.sql("SELECT current_user()").first()[0]
        self.schema = "sensors_" + re.sub(r"[^a-z0-9]+", "_", self.user.lower())
        self.folders = LakeFolders(f"dbfs:/Users/{self.user}/{project}")

    def use_schema(self):
        spark.sql(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
        spark.sql(f"USE {self.schema}")

    def reset(self):
        spark.sql(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")
        dbutils.fs.rm(self.folders.base, True)

# COMMAND ----------

lab = SensorLab()
print(f"Working as {lab.user} in {lab.folders.base}")
