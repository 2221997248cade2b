import sys
import mylib
r = spark.readStream.format("kafka").option("subscribe", "a") if sys.argv[1] == "a" else mylib.reader(spark, "topic-b")
df = r.load()
df.writeStream.format("console").option("checkpointLocation", "/chk/r").start()
