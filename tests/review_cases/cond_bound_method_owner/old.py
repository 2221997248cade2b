import sys
class Agg:
    def __init__(self, key):
        self.key = key
    def apply(self, df):
        return df.groupBy(self.key).count()
stages = []
if "--agg" in sys.argv:
    stages.append(Agg("key").apply)
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage(df)
df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
