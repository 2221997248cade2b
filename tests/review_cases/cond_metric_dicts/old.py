import sys
from pyspark.sql import functions as F
metrics = [{"name": "n", "expr": F.count("*")}]
if "--amounts" in sys.argv:
    metrics.append({"name": "total", "expr": F.sum("amount")})
df = spark.readStream.format("kafka").option("subscribe", "events").load()
aggs = [m["expr"].alias(m["name"]) for m in metrics]
df.groupBy("key").agg(*aggs).writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
