import sys
def make(key):
    def agg(df):
        return df.groupBy(key).count()
    return agg
stages = []
if "--agg" in sys.argv:
    stages.append(make("key"))
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
