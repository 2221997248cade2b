import dlt
import functools

def counted(fn):
    @functools.wraps(fn)
    def wrap():
        return fn().groupBy("value").count()
    return wrap

@dlt.table
@counted
def totals():
    return spark.readStream.table("events")
