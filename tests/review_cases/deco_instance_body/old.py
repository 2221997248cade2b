class Timed:
    def __init__(self, fn):
        self.fn = fn
    def __call__(self, *args):
        return self.fn(*args)

def timed(fn):
    return Timed(fn)

@timed
def build(df):
    return df.groupBy("key").count()

df = spark.readStream.format("kafka").option("subscribe", "events").load()
(build(df).writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/e").start())
