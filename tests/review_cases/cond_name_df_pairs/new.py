import sys
from pyspark.sql import functions as F
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [("by_key", df.groupBy("key").count())]
if "--errors" in sys.argv:
    errors = df.filter(F.col("status") >= 500)
    outs.append(("errors", errors.groupBy("value").count()))
for name, o in outs:
    o.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/" + name).start()
