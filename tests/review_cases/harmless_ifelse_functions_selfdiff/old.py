import sys
def dedup_by_event(df):
    return df.dropDuplicates(["event_id"])
def passthrough(df):
    return df
steps = []
if "--dedup" in sys.argv:
    steps.append(dedup_by_event)
else:
    steps.append(passthrough)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for step in steps:
    df = step(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
