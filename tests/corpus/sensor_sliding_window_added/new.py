# Plant-floor telemetry: average temperature per machine over 10-minute windows,
# sliding every 2 minutes so alerts fire sooner.
# Input lands as newline-delimited JSON from the edge gateways.
import pyspark.sql.functions as f
from pyspark.sql import SparkSession

LANDING_DIR = "abfss://telemetry@plantlake.dfs.core.windows.net/landing/sensors"
CHECKPOINT = "abfss://telemetry@plantlake.dfs.core.windows.net/_chk/machine_temperature"
SENSOR_DDL = "machine_id STRING, sensor STRING, reading DOUBLE, unit STRING, measured_at TIMESTAMP"


def machine_temperature(spark):
    readings = (
        spark.readStream
        .schema(SENSOR_DDL)
        .option("maxFilesPerTrigger", 200)
        .json(LANDING_DIR)
    )
    temps = readings.where(f.col("sensor") == "temperature")
    return (
        temps
        .withWatermark("measured_at", "30 minutes")
        .groupBy(f.window("measured_at", "10 minutes", "2 minutes"), f.col("machine_id"))
        .agg(
            f.avg("reading").alias("avg_temp"),
            f.max("reading").alias("max_temp"),
        )
    )


if __name__ == "__main__":
    spark = SparkSession.builder.appName("machine-temperature").getOrCreate()
    query = (
        machine_temperature(spark)
        .writeStream
        .format("delta")
        .outputMode("append")
        .option("checkpointLocation", CHECKPOINT)
        .toTable("plant.silver.machine_temperature_10m")
    )
    query.awaitTermination()
