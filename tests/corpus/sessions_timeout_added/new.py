# Session tracking per user over the click topic (applyInPandasWithState).
import os
from typing import Iterator, Tuple

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json
from pyspark.sql.streaming.state import GroupState

TOPIC = os.environ.get("CLICK_TOPIC", "web.clicks")
CHECKPOINT = os.environ.get("SESSIONS_CHECKPOINT", "/chk/sessions")

CLICK_DDL = "user_id STRING, page STRING, event_time TIMESTAMP"
OUTPUT_DDL = "user_id STRING, clicks LONG, first_seen TIMESTAMP, last_seen TIMESTAMP, expired BOOLEAN"
STATE_DDL = "clicks LONG, first_seen TIMESTAMP, last_seen TIMESTAMP"


SESSION_GAP_MS = 30 * 60 * 1000


def sessionize(key: Tuple[str], pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    if state.hasTimedOut:
        clicks, first_seen, last_seen = state.get
        state.remove()
        yield pd.DataFrame(
            {"user_id": [key[0]], "clicks": [clicks], "first_seen": [first_seen],
             "last_seen": [last_seen], "expired": [True]}
        )
        return
    clicks, first_seen, last_seen = state.get if state.exists else (0, None, None)
    for pdf in pdfs:
        clicks += len(pdf)
        lo, hi = pdf["event_time"].min(), pdf["event_time"].max()
        first_seen = lo if first_seen is None else min(first_seen, lo)
        last_seen = hi if last_seen is None else max(last_seen, hi)
    state.update((clicks, first_seen, last_seen))
    state.setTimeoutTimestamp(int(last_seen.timestamp() * 1000) + SESSION_GAP_MS)
    yield pd.DataFrame(
        {"user_id": [key[0]], "clicks": [clicks], "first_seen": [first_seen],
         "last_seen": [last_seen], "expired": [False]}
    )


spark = SparkSession.builder.appName("click-sessions").getOrCreate()

clicks = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka:9092")
    .option("subscribe", TOPIC)
    .load()
    .select(from_json(col("value").cast("string"), CLICK_DDL).alias("c"))
    .select("c.*")
    .withWatermark("event_time", "30 minutes")
)

sessions = clicks.groupBy("user_id").applyInPandasWithState(
    sessionize, OUTPUT_DDL, STATE_DDL, "update", "EventTimeTimeout"
)

(
    sessions.writeStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka:9092")
    .option("topic", "web.sessions")
    .option("checkpointLocation", CHECKPOINT)
    .outputMode("update")
    .start()
    .awaitTermination()
)
