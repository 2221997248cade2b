import sys

class Prod:
    keys = ["key", "timestamp"]

class Dev:
    keys = ["key", "value"]

def make_cfg(env):
    if env == "prod":
        return Prod()
    return Dev()

cfg = make_cfg(sys.argv[1])
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.dropDuplicates(cfg.keys).writeStream.format("console").option("checkpointLocation", "/chk/e").start()
