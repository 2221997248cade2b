import sys

def reader(env):
    if env == "prod":
        return spark.readStream.format("delta").option("subscribe", "events")
    return spark.readStream.format("rate")

df = reader(sys.argv[1]).load()
df.groupBy("value").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
