def make():
    outs = []
    def add(df):
        outs.append(df.groupBy("value").count())
    return outs, add
outs, add = make()
add(spark.readStream.format("kafka").option("subscribe", "events").load())

first = outs[0] if outs else None
first.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
