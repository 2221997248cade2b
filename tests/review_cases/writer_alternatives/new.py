import os

def to_parquet(w):
    w.format("parquet").option("path", "/t/f")

def to_json(w):
    w.format("json").option("path", "/t/j")

configure = to_parquet if os.environ.get("FMT") == "parquet" else to_json
df = spark.readStream.format("kafka").option("subscribe", "events").load()
w = df.writeStream.option("checkpointLocation", "/chk/e")
configure(w)
w.start()
