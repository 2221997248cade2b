def add(**kw):
    kw["outs"].append(kw["df"].groupBy("value").count())
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value > 0")]
add(outs=outs, df=df)
outs[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
