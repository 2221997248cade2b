# Bronze to silver for device telemetry landed as JSON in ADLS Gen2.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
account = spark.conf.get("pipeline.storage_account")

telemetry = (spark.readStream
             .schema("device_id STRING, reading DOUBLE, recorded_at TIMESTAMP")
             .json(f"abfss://bronze@{account}.dfs.core.windows.net/telemetry"))

cleaned = telemetry.filter(F.col("reading").isNotNull())

(cleaned.writeStream.format("delta")
    .option("checkpointLocation", f"abfss://checkpoints@{account}.dfs.core.windows.net/telemetry_silver")
    .start(f"abfss://lake@{account}.dfs.core.windows.net/silver/telemetry"))
