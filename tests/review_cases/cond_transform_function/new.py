import sys
def dedup_by_event(df):
    return df.dropDuplicates(["event_id"])
def dedup_by_session(df):
    return df.dropDuplicates(["session_id"])
def clean(df):
    return df.filter("value is not null")
steps = [clean]
if "--dedup" in sys.argv:
    steps.append(dedup_by_session)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for step in steps:
    df = step(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
