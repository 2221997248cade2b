def make():
    topics = []
    def sub(t):
        topics.append(t)
    return topics, sub
topics, sub = make()
sub("events2")
df = spark.readStream.format("kafka").option("subscribe", ",".join(topics)).load()
df.groupBy("key").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
