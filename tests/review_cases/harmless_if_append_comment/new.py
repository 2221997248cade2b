# counts per key, and raw rows when debugging
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.groupBy("key").count()]
if "--debug" in sys.argv:
    outs.append(df.filter("value > 0"))
for i, o in enumerate(outs):
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", f"/chk/{i}").start()
