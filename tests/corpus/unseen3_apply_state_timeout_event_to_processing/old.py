import pandas as pd
from pyspark.sql import SparkSession, functions as F
from pyspark.sql.streaming.state import GroupStateTimeout
from pyspark.sql.types import StructType, StructField, StringType, LongType, TimestampType

spark = SparkSession.builder.appName("sessions").getOrCreate()
events = spark.readStream.format("delta").table("bronze.events").withWatermark("ts", "10 minutes")

def track(key, pdfs, state):
    n = state.get[0] if state.exists else 0
    for pdf in pdfs:
        n += len(pdf)
    state.update((n, None))
    state.setTimeoutTimestamp(state.getCurrentWatermarkMs() + 600000)
    yield pd.DataFrame({"user_id": [key[0]], "n": [n]})

OUT = StructType([StructField("user_id", StringType()), StructField("n", LongType())])
STATE = StructType([StructField("n", LongType()), StructField("last", TimestampType())])
out = events.groupBy("user_id").applyInPandasWithState(
    track, outputStructType=OUT, stateStructType=STATE, outputMode="Update", timeoutConf=GroupStateTimeout.EventTimeTimeout)
(out.writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/sessions").toTable("gold.sessions"))
