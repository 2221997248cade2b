from functools import partial
def add(outs, key, df):
    outs.append(df.groupBy(key).count())
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value > 0")]
f = partial(add, outs, "value")
f(df)
outs[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
