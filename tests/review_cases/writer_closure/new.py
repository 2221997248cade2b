def run(df):
    w = df.writeStream.option("checkpointLocation", "/chk/e")
    def sink(fmt, path):
        w.format(fmt).option("path", path)
    sink("parquet", "/t/f")
    w.start()

run(spark.readStream.format("kafka").option("subscribe", "events").load())
