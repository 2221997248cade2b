df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value > 0")]
ctx = {"outs": outs, "df": df}
def add(ctx):
    ctx["outs"].append(ctx["df"].groupBy("value").count())
add(ctx)
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
