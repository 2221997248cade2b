df = spark.readStream.format("kafka").option("subscribe", "events").load()
reg = {"aggs": [df.filter("value > 0")]}
reg.setdefault("aggs", []).append(df.groupBy("value").count())
for i, q in enumerate(reg["aggs"]):
    q.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
