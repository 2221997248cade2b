import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
def plain(o, d):
    o.append(d)
def positive(o, d):
    o.append(d.filter("value > 1"))
add = plain if len(sys.argv) > 1 else positive
outs = []
add(outs, df.filter("value < 100"))
add(outs, df.groupBy("value").count())
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
