df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.dropDuplicates(["key"])]
a = outs
a += [df.groupBy("key").count()]
outs[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
