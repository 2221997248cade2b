from helpers import make

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs, add = make()
add(df)
outs[0].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
