"""Bronze -> silver for shipment tracking events (stateless clean-up)."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

CATALOG = os.environ.get("UC_CATALOG", "logistics")
PIPELINE_VERSION = "v3"
CHECKPOINT_BASE = "/Volumes/logistics/ops/checkpoints"
CHECKPOINT = f"{CHECKPOINT_BASE}/silver_shipment_events/{PIPELINE_VERSION}"


def clean(events):
    return (
        events.where(F.col("tracking_number").isNotNull())
        .withColumn("carrier", F.upper(F.trim("carrier")))
        .withColumn("event_date", F.to_date("event_ts"))
        .select("tracking_number", "carrier", "status", "location", "event_ts", "event_date")
    )


def main():
    spark = SparkSession.builder.getOrCreate()
    bronze = spark.readStream.table(f"{CATALOG}.bronze.shipment_events")
    (
        clean(bronze)
        .writeStream
        .option("checkpointLocation", CHECKPOINT)
        .trigger(availableNow=True)
        .toTable(f"{CATALOG}.silver.shipment_events")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
