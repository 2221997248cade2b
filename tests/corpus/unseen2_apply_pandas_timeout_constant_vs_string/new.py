from typing import Iterator, Tuple
import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout

spark = SparkSession.builder.getOrCreate()
OUT = "user_id STRING, clicks LONG"
STATE = "clicks LONG"


def count_clicks(key: Tuple[str], pdfs: Iterator[pd.DataFrame], state: GroupState) -> Iterator[pd.DataFrame]:
    if state.hasTimedOut:
        state.remove()
        return
    (clicks,) = state.get if state.exists else (0,)
    for pdf in pdfs:
        clicks += len(pdf)
    state.update((clicks,))
    state.setTimeoutDuration(30 * 60 * 1000)
    yield pd.DataFrame({"user_id": [key[0]], "clicks": [clicks]})


clicks = spark.readStream.format("delta").table("web.clicks")
out = clicks.groupBy("user_id").applyInPandasWithState(
    count_clicks, OUT, STATE, "update", GroupStateTimeout.ProcessingTimeTimeout)
(out.writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/user_clicks").toTable("web.user_clicks"))
