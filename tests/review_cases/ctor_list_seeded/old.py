class Builder:
    def __init__(self, outs):
        self.outs = outs
    def add(self, df):
        self.outs.append(df.groupBy("key").count())
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value > 0")]
Builder(outs).add(df)
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
