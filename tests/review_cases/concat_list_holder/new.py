df = spark.readStream.format("kafka").option("subscribe", "events").load()
common = [df.filter("value > 0")]
outs = common + [df.filter("value < 100")]
class Registry:
    def __init__(self, outs):
        self.outs = outs
    def add(self, d):
        self.outs.append(d)
reg = Registry(outs)
reg.add(df.groupBy("value").count())
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
