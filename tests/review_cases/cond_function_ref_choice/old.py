import sys
from pyspark.sql import functions as F
agg_fn = F.sum if "--sum" in sys.argv else F.max
df = spark.readStream.format("kafka").option("subscribe", "events").load()
agg = df.groupBy("key").agg(agg_fn("value"))
agg.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
