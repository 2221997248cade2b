df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.groupBy("key").count(), df.dropDuplicates(["key"])]
outs.reverse()
outs[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
