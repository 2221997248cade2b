import sys
topics = ["orders"]
if ("--replay" in sys.argv):
    topics.append("orders-archive")
df = spark.readStream.format("kafka").option("subscribe", ",".join(topics)).load()
df.groupBy("key").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
