import sys
from pyspark.sql import functions as F
aggs = [F.count("*").alias("n")]
if "--amounts" in sys.argv:
    aggs.append(F.max("amount").alias("total"))
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.groupBy("key").agg(*aggs).writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
