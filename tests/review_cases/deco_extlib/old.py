import cachetools

def memo(fn):
    return cachetools.cached(cache={})(fn)

@memo
def build(df):
    return df.groupBy("key").count()

df = spark.readStream.format("kafka").option("subscribe", "events").load()
(build(df).writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/e").start())
