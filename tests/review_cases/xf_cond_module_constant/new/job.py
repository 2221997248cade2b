import sys
import settings

def agg(df):
    return df.groupBy(settings.GROUP_KEY).count()

stages = []
if "--agg" in sys.argv:
    stages.append(agg)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
