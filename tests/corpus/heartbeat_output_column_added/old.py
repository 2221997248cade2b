"""Fleet heartbeat monitor: track the last heartbeat of each vehicle and flag silent ones."""
from typing import Iterator

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType, TimestampType

HEARTBEAT = StructType(
    [
        StructField("vehicle_id", StringType()),
        StructField("depot", StringType()),
        StructField("firmware", StringType()),
        StructField("sent_at", TimestampType()),
    ]
)
STATUS_SCHEMA = "vehicle_id STRING, last_seen TIMESTAMP, beats LONG, silent BOOLEAN"
STATE_SCHEMA = "last_seen TIMESTAMP, beats LONG"
SILENCE = pd.Timedelta(minutes=15)


def watch(key, pdfs: Iterator[pd.DataFrame], state) -> Iterator[pd.DataFrame]:
    last_seen, beats = state.get if state.exists else (pd.Timestamp.min, 0)
    for pdf in pdfs:
        beats += len(pdf)
        last_seen = max(last_seen, pdf["sent_at"].max())
    state.update((last_seen, beats))
    silent = pd.Timestamp.utcnow().tz_localize(None) - last_seen > SILENCE
    yield pd.DataFrame({"vehicle_id": [key[0]], "last_seen": [last_seen], "beats": [beats], "silent": [silent]})


def main():
    spark = SparkSession.builder.appName("fleet-heartbeats").getOrCreate()
    beats = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "telematics-kafka:9092")
        .option("subscribe", "fleet.heartbeats")
        .option("maxOffsetsPerTrigger", "500000")
        .load()
        .select(F.from_json(F.col("value").cast("string"), HEARTBEAT).alias("hb"))
        .select("hb.*")
    )
    status = beats.groupBy("vehicle_id").applyInPandasWithState(
        watch, STATUS_SCHEMA, STATE_SCHEMA, "update", "NoTimeout"
    )
    (
        status.writeStream.outputMode("update")
        .foreachBatch(lambda df, _: df.write.mode("append").saveAsTable("fleet.vehicle_status_log"))
        .option("checkpointLocation", "s3://fleet/_checkpoints/vehicle_status")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
