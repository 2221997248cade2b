"""Fraud signals with arbitrary state: running spend per card, and a velocity processor."""
from collections.abc import Iterator

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.streaming.state import GroupStateTimeout
from pyspark.sql.types import DoubleType, LongType, StructField, StructType, TimestampType

SPEND_OUTPUT = "card_id STRING, total_spend DOUBLE, txn_count LONG"
SPEND_STATE = StructType([
    StructField("total_spend", DoubleType()),
    StructField("txn_count", LongType()),
])
RECENT_SCHEMA = StructType([StructField("ts", TimestampType())])

spark = SparkSession.builder.getOrCreate()
spark.conf.set(
    "spark.sql.streaming.stateStore.providerClass",
    "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
)

txns = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "fraud-kafka:9092")
    .option("subscribe", "card.txns")
    .load()
    .selectExpr("CAST(key AS STRING) AS card_id", "CAST(value AS DOUBLE) AS amount",
                "timestamp AS ts")
    .withWatermark("ts", "10 minutes")
)


def running_spend(key, pdfs: Iterator[pd.DataFrame], state) -> Iterator[pd.DataFrame]:
    total, count = state.get if state.exists else (0.0, 0)
    for pdf in pdfs:
        total += pdf["amount"].sum()
        count += len(pdf)
    state.update((total, count))
    state.setTimeoutTimestamp(state.getCurrentWatermarkMs() + 3_600_000)
    yield pd.DataFrame({"card_id": [key[0]], "total_spend": [total], "txn_count": [count]})


spend = txns.groupBy("card_id").applyInPandasWithState(
    running_spend,
    outputStructType=SPEND_OUTPUT,
    stateStructType=SPEND_STATE,
    outputMode="Update",
    timeoutConf=GroupStateTimeout.EventTimeTimeout,
)
spend.writeStream.format("delta").outputMode("update").option(
    "checkpointLocation", "/mnt/chk/spend").start("/mnt/gold/spend")


class VelocityProcessor(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("count", "count LONG")
        self.recent = handle.getListState("recent", RECENT_SCHEMA)

    def handleInputRows(self, key, rows, timerValues) -> Iterator[pd.DataFrame]:
        seen = self.count.get()[0] if self.count.exists() else 0
        for pdf in rows:
            seen += len(pdf)
        self.count.update((seen,))
        yield pd.DataFrame({"card_id": [key[0]], "txns_seen": [seen]})

    def close(self) -> None:
        pass


velocity = txns.groupBy("card_id").transformWithStateInPandas(
    statefulProcessor=VelocityProcessor(),
    outputStructType="card_id STRING, txns_seen LONG",
    outputMode="Append",
    timeMode="EventTime",
)
velocity.writeStream.format("delta").option("checkpointLocation", "/mnt/chk/velocity").start(
    "/mnt/gold/velocity")
