df = spark.readStream.format("kafka").option("subscribe", "events").load()
W = df.writeStream.option("checkpointLocation", "/chk/e")

def sink():
    W.format("parquet").option("path", "/t/e")

sink()
W.start()
