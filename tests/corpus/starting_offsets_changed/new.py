# Ledger entries arrive at-least-once from the core banking CDC connector.
# Drop replays by transaction id before they reach the reconciliation table.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json

ENTRY_DDL = "txn_id STRING, account_id STRING, amount DECIMAL(18,2), booked_at TIMESTAMP, op STRING"

spark = SparkSession.builder.appName("ledger-dedup").getOrCreate()

cdc = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "cdc-kafka:9092")
    .option("subscribe", "corebank.ledger_entries")
    .option("startingOffsets", """{"corebank.ledger_entries": {"0": 1830021, "1": 1828876, "2": 1831410}}""")
    .load()
)

entries = (
    cdc.select(from_json(col("value").cast("string"), ENTRY_DDL).alias("e"), col("timestamp").alias("ingested_at"))
    .select("e.*", "ingested_at")
    .where(col("op") != "d")
)

unique_entries = entries.withWatermark("booked_at", "6 hours").dropDuplicates(["txn_id", "booked_at"])

(
    unique_entries.writeStream
    .format("delta")
    .outputMode("append")
    .option("checkpointLocation", "/mnt/recon/_checkpoints/ledger_entries")
    .start("/mnt/recon/ledger_entries")
)

spark.streams.awaitAnyTermination()
