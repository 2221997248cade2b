import sys
class Base:
    def apply(self, df):
        return df.groupBy("value").count()
class ByKey(Base):
    pass
stages = []
if "--agg" in sys.argv:
    stages.append(ByKey())
df = spark.readStream.format("kafka").option("subscribe", "events").load()
for stage in stages:
    df = stage.apply(df)
df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
