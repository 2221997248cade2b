def add(outs, df):
    outs += [df.groupBy("value").count()]

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
add(outs, df)
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
