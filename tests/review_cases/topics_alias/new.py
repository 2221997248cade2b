topics = ["events"]
t = topics
t.append("payments")
df = spark.readStream.format("kafka").option("subscribe", ",".join(topics)).load()
df.groupBy("key").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
