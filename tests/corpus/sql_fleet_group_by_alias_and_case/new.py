"""Driving sessions per truck from the telematics feed: a session ends after 5 idle minutes.

telematics.positions_bronze is appended by the modem gateway; fleet ops read fleet.truck_sessions.
"""
from pyspark.sql import SparkSession

CHECKPOINT = "s3://fleet-lake/_checkpoints/truck_sessions"

spark = SparkSession.builder.appName("truck-sessions").getOrCreate()
spark.conf.set("spark.sql.session.timeZone", "UTC")

spark.readStream.table("telematics.positions_bronze").createOrReplaceTempView("positions")

sessions = spark.sql("""
    SELECT truck_id,
           session_window(gps_time, '5 minutes') AS drive,
           count(*) AS pings,
           max(speed_kmh) AS top_speed,
           sum(distance_m) / 1000 AS km
    FROM positions
    WATERMARK gps_time DELAY OF INTERVAL 10 MINUTES
    WHERE ignition_on
    group by truck_id, drive
""")

(
    sessions.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(processingTime="2 minutes")
    .toTable("fleet.truck_sessions")
)
spark.streams.awaitAnyTermination()
