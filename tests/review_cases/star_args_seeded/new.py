def add(*a):
    outs, df = a
    outs.append(df.groupBy("value").count())
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value > 0")]
add(outs, df)
outs[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
