df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
if spark.conf.get("x") == "1":
    outs.append(df.groupBy("key").count())
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
