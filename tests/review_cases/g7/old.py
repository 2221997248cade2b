import sys

def dedup(df):
    return df.dropDuplicates(["key"])

def passthrough(df):
    return df

def pick(mode):
    if mode == "dedup":
        return dedup
    return passthrough

df = spark.readStream.format("kafka").option("subscribe", "events").load()
pick(sys.argv[1])(df).writeStream.format("console").option("checkpointLocation", "/chk/e").start()
