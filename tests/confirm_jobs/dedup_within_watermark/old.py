"""Ledger entries arrive at least once from Kafka: keep the first per entry id, write to Delta."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ENTRY_DDL = "entry_id STRING, account STRING, amount DOUBLE, booked_at TIMESTAMP"

spark = SparkSession.builder.appName("ledger-dedup").getOrCreate()
entries = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "10.20.30.40:9093")
    .option("subscribe", "ledger.entries")
    .load()
    .select(F.from_json(F.col("value").cast("string"), ENTRY_DDL).alias("e"))
    .select("e.*")
    .withWatermark("booked_at", "1 hour")
)
first = entries.dropDuplicates(["entry_id"])
first.writeStream.format("delta").option(
    "checkpointLocation", "s3://ledger/_checkpoints/entries"
).start("s3://ledger/silver/entries").awaitTermination()
