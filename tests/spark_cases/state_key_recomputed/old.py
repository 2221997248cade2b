"""Per-customer order statistics kept in user state, keyed by the customer code in lower case;
a customer's state expires 60 s after its last order (event time)."""
import os
from collections.abc import Iterator

import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout

INPUT = os.environ.get("STREAMLINT_INPUT", "/data/landing/orders")
CHECKPOINT = os.environ.get("STREAMLINT_CHECKPOINT", "/chk/customer_stats")
OUTPUT = os.environ.get("STREAMLINT_OUTPUT", "/lake/customer_stats")

ORDER_SCHEMA = "order_id LONG, customer STRING, country STRING, amount LONG, ts TIMESTAMP"
OUTPUT_SCHEMA = "customer STRING, orders LONG, revenue LONG, expired BOOLEAN"
STATE_SCHEMA = "orders LONG, revenue LONG"


def track(key: tuple, batches: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    if state.hasTimedOut:
        orders, revenue = state.get
        state.remove()
        yield pd.DataFrame(
            {"customer": [key[0]], "orders": [orders], "revenue": [revenue], "expired": [True]}
        )
        return
    orders, revenue = state.get if state.exists else (0, 0)
    newest_ms = 0
    for batch in batches:
        orders += len(batch)
        revenue += int(batch["amount"].sum())
        newest_ms = max(newest_ms, int(pd.Timestamp(batch["ts"].max()).timestamp() * 1000))
    state.update((orders, revenue))
    state.setTimeoutTimestamp(max(newest_ms, state.getCurrentWatermarkMs()) + 60_000)
    yield pd.DataFrame(
        {"customer": [key[0]], "orders": [orders], "revenue": [revenue], "expired": [False]}
    )


def append_batch(batch: DataFrame, batch_id: int) -> None:
    batch.write.mode("append").parquet(OUTPUT)


spark = SparkSession.builder.getOrCreate()
orders = (
    spark.readStream.schema(ORDER_SCHEMA).json(INPUT).withWatermark("ts", "10 seconds")
    .withColumn("customer", F.lower("customer"))
)
stats = orders.groupBy("customer").applyInPandasWithState(
    track,
    outputStructType=OUTPUT_SCHEMA,
    stateStructType=STATE_SCHEMA,
    outputMode="update",
    timeoutConf=GroupStateTimeout.EventTimeTimeout,
)

query = (
    stats.writeStream.foreachBatch(append_batch)
    .outputMode("update")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
