import sys
CONFIG = {"log_level": "DEBUG", "app_name": "events", "dedup_cols": ["event_id"]}
def dedup(df):
    return df.dropDuplicates(CONFIG["dedup_cols"])
stages = []
if "--dedup" in sys.argv:
    stages.append(dedup)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
