class Registry:
    def __init__(self, outs):
        self.outs = outs
    def add(self, df):
        self.outs.append(df.groupBy("value").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
r = Registry(outs)
r.add(df)
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
