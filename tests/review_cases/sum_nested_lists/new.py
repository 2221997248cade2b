df = spark.readStream.format("kafka").option("subscribe", "events").load()
raw = [df.filter("value > 0")]
aggs = []
groups = [raw, aggs]
aggs.append(df.groupBy("value").count())
outs = sum(groups, [])
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
