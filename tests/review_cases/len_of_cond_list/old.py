import sys
keys = ["key"]
if "--by-region" in sys.argv:
    keys.append("region")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
if len(keys) > 1:
    agg = df.groupBy(*keys).count()
else:
    agg = df.groupBy("key").count()
agg.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
