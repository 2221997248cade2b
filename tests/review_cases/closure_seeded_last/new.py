def make(df):
    outs = [df.filter("value > 0")]
    def add(x):
        outs.append(x.groupBy("value").count())
    return outs, add
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs, add = make(df)
add(df)
outs[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
