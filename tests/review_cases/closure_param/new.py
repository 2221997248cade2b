def build(outs, df):
    def add(x):
        outs.append(x)
    add(df.groupBy("value").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
build(outs, df)
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
