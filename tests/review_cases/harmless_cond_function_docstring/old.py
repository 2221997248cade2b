import sys
def dedup_by_event(df):
    return df.dropDuplicates(["event_id"])
stages = []
if "--dedup" in sys.argv:
    stages.append(dedup_by_event)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
