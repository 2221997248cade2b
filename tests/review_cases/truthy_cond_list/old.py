import sys
extra = []
if "--by-region" in sys.argv:
    extra.append("region")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
if extra:
    agg = df.groupBy("key", *extra).count()
else:
    agg = df.groupBy("key").count()
agg.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
