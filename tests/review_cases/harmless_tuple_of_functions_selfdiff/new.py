# nightly job
import sys
def dedup_by_event(df):
    return df.dropDuplicates(["event_id"])
def passthrough(df):
    return df
cfg = ("dedup", dedup_by_event) if "--dedup" in sys.argv else ("raw", passthrough)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df = cfg[1](df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
