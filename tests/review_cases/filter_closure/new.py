def make():
    outs = []
    def add(df):
        outs.append(df.groupBy("value").count())
    return outs, add
outs, add = make()
add(spark.readStream.format("kafka").option("subscribe", "events").load())

for o in filter(None, outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
