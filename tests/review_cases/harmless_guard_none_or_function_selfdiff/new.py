# nightly job
import os
def dedup_by_event(df):
    return df.dropDuplicates(["event_id"])
def pick_step():
    if not os.environ.get("DEDUP"):
        return None
    return dedup_by_event
step = pick_step()
df = spark.readStream.format("kafka").option("subscribe", "events").load()
if step:
    df = step(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
