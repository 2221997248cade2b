import sys
def dedup_by_event(df):
    return df.dropDuplicates(["event_id"])
def passthrough(df):
    return df
step = None if "--raw" in sys.argv else dedup_by_event
df = spark.readStream.format("kafka").option("subscribe", "events").load()
if step is not None:
    df = step(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
