def add(df, **kw):
    kw["outs"].append(df.groupBy("key").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
add(df, outs=outs)
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
