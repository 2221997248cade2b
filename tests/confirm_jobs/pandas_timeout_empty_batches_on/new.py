"""Sessionize device heartbeats with applyInPandasWithState; sessions close 30 minutes of
processing time after the last heartbeat. The job plans batches without new rows itself
(Spark's default, set explicitly), so under availableNow Spark plans empty batches forever.
Device events come from Kafka; each session update goes to a Delta table."""
from collections.abc import Iterator

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout

HEARTBEAT_DDL = "device_id STRING, firmware STRING, battery DOUBLE, seen_at TIMESTAMP"
OUTPUT_DDL = "device_id STRING, beats LONG, closed BOOLEAN"
STATE_DDL = "beats LONG, last_seen_ms LONG"


def sessionize(key: tuple, pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    if state.hasTimedOut:
        (beats, _last) = state.get
        state.remove()
        yield pd.DataFrame({"device_id": [key[0]], "beats": [beats], "closed": [True]})
        return
    beats, last = state.get if state.exists else (0, 0)
    for pdf in pdfs:
        beats += len(pdf)
        last = max(last, int(pd.Timestamp(pdf["seen_at"].max()).timestamp() * 1000))
    state.update((beats, last))
    state.setTimeoutDuration(30 * 60 * 1000)
    yield pd.DataFrame({"device_id": [key[0]], "beats": [beats], "closed": [False]})


spark = SparkSession.builder.getOrCreate()
spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "true")
beats = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "iot-kafka.unreachable.invalid:9092")
    .option("subscribe", "devices.heartbeats")
    .load()
    .select(F.from_json(F.col("value").cast("string"), HEARTBEAT_DDL).alias("h"))
    .select("h.*")
    .withWatermark("seen_at", "5 minutes")
)
sessions = beats.groupBy("device_id").applyInPandasWithState(
    sessionize, OUTPUT_DDL, STATE_DDL, "append", GroupStateTimeout.ProcessingTimeTimeout
)
sessions.writeStream.format("delta").outputMode("append").option(
    "checkpointLocation", "dbfs:/checkpoints/device_sessions"
).toTable("iot.device_sessions").awaitTermination()
