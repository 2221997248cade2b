"""Events per user kept in transformWithStateInPandas value state (Spark 4; the cluster
configures the RocksDB state store it needs), read from the activity topic and upserted into the user profile store per batch."""
from collections.abc import Iterator

import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle

ACTIVITY_DDL = "user_id STRING, page STRING, seen_at TIMESTAMP"


class ActivityCounter(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.counts = handle.getValueState("counts", "events LONG")
        self.pages = handle.getMapState("pages", "page STRING", "hits LONG")

    def handleInputRows(self, key, rows: Iterator[pd.DataFrame], timerValues) -> Iterator[pd.DataFrame]:
        events = self.counts.get()[0] if self.counts.exists() else 0
        for pdf in rows:
            events += len(pdf)
        self.counts.update((events,))
        yield pd.DataFrame({"user_id": [key[0]], "events": [events]})

    def close(self) -> None:
        pass


def upsert_profiles(batch: DataFrame, batch_id: int) -> None:
    batch.write.format("jdbc").option("url", "jdbc:postgresql://profiles-db.unreachable.invalid/app") \
        .option("dbtable", "user_activity").mode("append").save()


spark = SparkSession.builder.getOrCreate()
activity = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka.unreachable.invalid:9092")
    .option("subscribe", "users.activity")
    .load()
    .select(F.from_json(F.col("value").cast("string"), ACTIVITY_DDL).alias("a"))
    .select("a.*")
)
counts = activity.groupBy("user_id").transformWithStateInPandas(
    statefulProcessor=ActivityCounter(),
    outputStructType="user_id STRING, events LONG",
    outputMode="Update",
    timeMode="None",
)
counts.writeStream.foreachBatch(upsert_profiles).outputMode("update").option(
    "checkpointLocation", "/checkpoints/user_activity"
).start().awaitTermination()
