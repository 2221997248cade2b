"""Sessionize app events per user with applyInPandasWithState; sessions land in Delta."""
from typing import Iterator, Tuple

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout

EVENTS_TABLE = "bronze.app_events"
SESSIONS_PATH = "s3://app-lake/silver/user_sessions"
CHECKPOINT = "s3://app-lake/_checkpoints/user_sessions"

OUTPUT_SCHEMA = "user_id STRING, session_start TIMESTAMP, events LONG"
STATE_SCHEMA = "session_start TIMESTAMP, events LONG"


def track_sessions(
    key: Tuple[str], batches: Iterator[pd.DataFrame], state: GroupState
) -> Iterator[pd.DataFrame]:
    (user_id,) = key
    session_start, events = state.get if state.exists else (None, 0)
    for pdf in batches:
        events += len(pdf)
        first = pdf["event_time"].min()
        session_start = first if session_start is None else min(session_start, first)
    state.update((session_start, events))
    yield pd.DataFrame({"user_id": [user_id], "session_start": [session_start], "events": [events]})


def main() -> None:
    spark = SparkSession.builder.appName("user-sessions").getOrCreate()
    events = spark.readStream.table(EVENTS_TABLE).where(F.col("user_id").isNotNull())

    sessions = events.groupBy("user_id").applyInPandasWithState(
        track_sessions,
        outputStructType=OUTPUT_SCHEMA,
        stateStructType=STATE_SCHEMA,
        outputMode="append",  # each call emits new session rows; the Delta sink appends
        timeoutConf=GroupStateTimeout.NoTimeout,
    )

    (
        sessions.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", CHECKPOINT)
        .start(SESSIONS_PATH)
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
