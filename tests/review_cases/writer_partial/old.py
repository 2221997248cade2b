from functools import partial

def configure(path, w):
    w.format("parquet").option("path", path)

df = spark.readStream.format("kafka").option("subscribe", "events").load()
w = df.writeStream.option("checkpointLocation", "/chk/e")
partial(configure, "/t/e")(w)
w.start()
