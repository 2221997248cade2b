df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df]
def agg():
    outs[0] = outs[0].groupBy("key").count()
agg()
outs[0].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
