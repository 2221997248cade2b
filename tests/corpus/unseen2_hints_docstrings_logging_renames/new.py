"""Regional revenue rollup.

Owner: data-platform. Reads shop.orders, writes 5-minute revenue windows per region.
"""
from __future__ import annotations

import logging
import os
from typing import Final

from pyspark.sql import DataFrame
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

log = logging.getLogger(__name__)
WATERMARK: Final[str] = "10 minutes"


def load_order_events(kafka_topic: str) -> DataFrame:
    """Parse order events from Kafka."""
    log.info("subscribing to %s", kafka_topic)
    events: DataFrame = (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", BOOTSTRAP)
            .option("subscribe", kafka_topic).load()
            .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o")).select("o.*"))
    return events


def revenue_by_region(order_events: DataFrame, *, delay: str = WATERMARK) -> DataFrame:
    """5-minute windows."""
    # NOTE: keep the window size, it is part of state
    return (order_events.withWatermark("event_time", delay)
            .groupBy(F.window("event_time", "5 minutes"), "region")
            .agg(F.sum("amount").alias("total")))


revenue: DataFrame = revenue_by_region(load_order_events(kafka_topic="shop.orders"))
log.info("starting query")
query = (revenue.writeStream.format("delta").outputMode("append")
     .option("checkpointLocation", "/chk/region_totals").start("/lake/gold/region_totals"))
log.info("started %s", query.id)
query.awaitTermination()
