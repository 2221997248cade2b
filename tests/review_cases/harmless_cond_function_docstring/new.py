import sys
def dedup_by_event(df):
    """Drop events seen before (the producer retries)."""
    return df.dropDuplicates(["event_id"])
stages = []
if "--dedup" in sys.argv:
    stages.append(dedup_by_event)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
