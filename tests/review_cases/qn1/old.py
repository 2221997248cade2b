import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
w = df.writeStream.queryName("a").option("checkpointLocation", "/chk/e")
if sys.argv[1] == "console":
    w = w.format("console")
else:
    w = w.format("memory")
w.start()
