def configure(w):
    w = w.format("parquet").option("path", "/t/f")

df = spark.readStream.format("kafka").option("subscribe", "events").load()
w = df.writeStream.option("checkpointLocation", "/chk/e")
configure(w)
w.start()
