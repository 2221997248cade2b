"""Per-device temperature summary for the cold-chain monitor, written entirely in Spark SQL.

iot.sensor_readings_bronze is the Delta table the gateway ingest job appends to.
"""
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

device_temperature = spark.sql("""
    SELECT device_id,
           site_id,
           min(temperature_c) AS min_temp,
           max(temperature_c) AS max_temp,
           count(*) AS readings
    FROM readings
    GROUP BY device_id, site_id
""")

query = (
    device_temperature.writeStream.format("delta")
    .outputMode("complete")
    .option("checkpointLocation", CHECKPOINT)
    .queryName("device_temperature")
    .toTable("coldchain.device_temperature")
)
query.awaitTermination()
