"""Every (device, firmware) pair seen on the fleet, once, for the device registry.

Heartbeats arrive on the IoT hub's Kafka endpoint about every 30 seconds per device; the
registry only needs each pair the first time it shows up.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

HUB = "iothub-ns-coldchain.servicebus.windows.net:9093"
CHECKPOINT = "abfss://registry@coldchainlake.dfs.core.windows.net/_checkpoints/device_firmware"
HEARTBEAT = "device_id STRING, site_id STRING, firmware STRING, battery_pct INT, sent_at TIMESTAMP"


def add_new_pairs(batch, batch_id):
    batch.createOrReplaceTempView("seen_pairs")
    batch.sparkSession.sql("""
        MERGE INTO registry.device_firmware AS r
        USING seen_pairs AS s
        ON r.device_id = s.device_id AND r.firmware = s.firmware
        WHEN NOT MATCHED THEN INSERT *
    """)


spark = SparkSession.builder.appName("device-firmware-registry").getOrCreate()

heartbeats = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", HUB)
    .option("subscribe", "device-heartbeats")
    .option("kafka.security.protocol", "SASL_SSL")
    .load()
    .select(F.from_json(F.col("value").cast("string"), HEARTBEAT).alias("h"))
    .select("h.*")
)
heartbeats.createOrReplaceTempView("heartbeats")

pairs = spark.sql("""
    SELECT DISTINCT device_id, site_id, firmware
    FROM heartbeats
    WHERE firmware IS NOT NULL
""")

(
    pairs.writeStream.foreachBatch(add_new_pairs)
    .outputMode("update")
    .option("checkpointLocation", CHECKPOINT)
    .start()
    .awaitTermination()
)
