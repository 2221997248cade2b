import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value > 0")] if len(sys.argv) > 1 else [df.filter("value < 0")]
alias = outs
alias.append(df.groupBy("key").count())
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
