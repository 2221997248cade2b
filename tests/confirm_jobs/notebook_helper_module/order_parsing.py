"""Shared parsing of the shop's order events (imported by the notebooks next to it)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ORDER_DDL = ("order_id STRING, store_id STRING, channel STRING, total DOUBLE, "
             "created_at TIMESTAMP")


def parse_orders(raw: DataFrame) -> DataFrame:
    return (
        raw.select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
        .select("o.*")
        .withWatermark("created_at", "30 minutes")
    )
