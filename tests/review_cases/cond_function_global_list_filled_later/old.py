import sys
KEYS = []
def agg(df):
    return df.groupBy(*KEYS).count()
stages = []
if "--agg" in sys.argv:
    stages.append(agg)
KEYS.append("key")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
