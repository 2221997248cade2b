def aggregate(outs):
    outs[:] = [o.groupBy("key").count() for o in outs]
outs = [spark.readStream.format("kafka").option("subscribe", "events").load()]
aggregate(outs)
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
