from pyspark import pipelines as dp

def counted(fn):
    def wrap():
        return fn().groupBy("key").count()
    return wrap

@dp.table(name="totals")
@counted
def totals():
    return spark.readStream.table("events")
