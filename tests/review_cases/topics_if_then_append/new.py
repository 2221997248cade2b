import sys
topics = ["events"]
if "--replay" in sys.argv:
    topics.append("events-replay")
topics.append("audit-v2")
df = spark.readStream.format("kafka").option("subscribe", ",".join(topics)).load()
df.groupBy("key").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
