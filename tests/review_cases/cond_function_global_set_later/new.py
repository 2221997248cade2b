import sys
def agg(df):
    return df.groupBy(KEY).count()
stages = []
if "--agg" in sys.argv:
    stages.append(agg)
KEY = "value"
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
