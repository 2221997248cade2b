df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.dropDuplicates(["key"]), df.groupBy("value").count()]
outs.pop(0)
outs[0].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
