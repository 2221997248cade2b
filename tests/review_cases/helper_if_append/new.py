import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.writeStream.format("parquet").option("path", "/raw").option("checkpointLocation", "/chk/raw").start()

def add_counts(outs, d):
    if "--counts" in sys.argv:
        outs.append(d.groupBy("value").count())

outs = []
add_counts(outs, df)
if outs:
    outs[0].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/counts").start()
