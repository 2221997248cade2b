def make():
    outs = []
    def add(df):
        outs.append(df.groupBy("value").count())
    return outs, add
outs, add = make()
add(spark.readStream.format("kafka").option("subscribe", "events").load())

q = next(o for o in outs)
q.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
