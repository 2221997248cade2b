df = spark.readStream.format("kafka").option("subscribe", "events").load()
DEFAULTS = [df.filter("value > 0")]
class Registry:
    def __init__(self, outs):
        self.outs = outs
    def add(self, d):
        self.outs.append(d)
outs = DEFAULTS.copy()
reg = Registry(outs)
reg.add(df.groupBy("value").count())
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
