import sys
from pyspark.sql.types import StructType, StructField, LongType, StringType
if "--v2" in sys.argv:
    state_schema = StructType([StructField("count", LongType())])
else:
    state_schema = StructType([StructField("total", StringType())])
out_schema = "key STRING, count LONG"

def count(key, pdfs, state):
    yield from pdfs

df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.groupBy("key").applyInPandasWithState(count, out_schema, state_schema, "update", "NoTimeout")
out.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
