import sys
from pyspark.sql import functions as F
keys = [F.col("event_date")]
if "--hourly" in sys.argv:
    keys.append(F.col("minute"))
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.groupBy(*keys).count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
