import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
class Job:
    def __init__(self, outs):
        self.outs = outs
    def add(self, d):
        self.outs.append(d)
outs = []
job = Job(outs)
if len(sys.argv) > 1:
    job.add(df.filter("value > 0"))
else:
    job.add(df.filter("value < 0"))
job.add(df.groupBy("value").count())
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
