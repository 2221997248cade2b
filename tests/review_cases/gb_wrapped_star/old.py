import functools
def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print("calling")
        return fn(*args, **kwargs)
    return wrapper

@logged
def add(outs, df):
    outs.append(df.groupBy("key").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
add(outs, df)
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
