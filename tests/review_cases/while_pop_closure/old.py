def make():
    outs = []
    def add(df):
        outs.append(df.groupBy("key").count())
    return outs, add
outs, add = make()
add(spark.readStream.format("kafka").option("subscribe", "events").load())

while outs:
    q = outs.pop()
    q.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
