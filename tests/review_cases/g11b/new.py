import sys

if sys.argv[1] == "prod":
    r = spark.readStream.format("rate")
else:
    r = spark.readStream.format("delta").option("subscribe", "events")
df = r.load()
df.groupBy("value").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
