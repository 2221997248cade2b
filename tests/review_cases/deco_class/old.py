class grouped:
    def __init__(self, fn):
        self.fn = fn
    def __call__(self, df):
        return self.fn(df).groupBy("key").count()

@grouped
def build(df):
    return df.filter("x > 0")

df = spark.readStream.format("kafka").option("subscribe", "events").load()
(build(df).writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/e").start())
