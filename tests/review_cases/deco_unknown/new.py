import functools

def logged(fn):
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__)
        return fn(*args, **kwargs)
    return functools.update_wrapper(wrapper, fn)

@logged
def build(df):
    return df.groupBy("value").count()

df = spark.readStream.format("kafka").option("subscribe", "events").load()
(build(df).writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/e").start())
