import sys
import mylib
df = spark.readStream.format("kafka").option("subscribe", "a").load() if sys.argv[1] == "a" else mylib.stream(spark, "topic-c")
df.writeStream.format("console").option("checkpointLocation", "/chk/r").start()
