import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
a = outs
if len(sys.argv) > 1:
    a.append(df.filter("value > 0"))
else:
    a.append(df.filter("value < 0"))
a.append(df.groupBy("key").count())
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
