"""Per-device temperature summary for the cold-chain monitor, written entirely in Spark SQL.

iot.sensor_readings_bronze is the Delta table the gateway ingest job appends to.
"""
from pathlib import Path

from pyspark.sql import SparkSession

CHECKPOINT = "dbfs:/mnt/coldchain/_checkpoints/device_temperature"

spark = SparkSession.builder.appName("coldchain-device-temperature").getOrCreate()
spark.conf.set("spark.sql.shuffle.partitions", "16")

spark.sql("""
    CREATE OR REPLACE TEMP VIEW readings AS
    SELECT device_id,
           site_id,
           CAST(temperature_c AS DOUBLE) AS temperature_c,
           humidity,
           event_time
    FROM STREAM(iot.sensor_readings_bronze)
    WHERE temperature_c IS NOT NULL
""")

# The summary query is owned by the analytics team and deployed next to the job.
with open(Path(__file__).with_name("device_temperature.sql")) as sql_file:
    device_temperature = spark.sql(sql_file.read())

query = (
    device_temperature.writeStream.format("delta")
    .outputMode("complete")
    .option("checkpointLocation", CHECKPOINT)
    .queryName("device_temperature")
    .toTable("coldchain.device_temperature")
)
query.awaitTermination()
