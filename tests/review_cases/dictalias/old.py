import sys
opts = {"subscribe": "a", "kafka.bootstrap.servers": "h:9092"}
if sys.argv[1] == "replay":
    opts.update({"subscribe": "replay"})
df = spark.readStream.format("kafka").options(**opts).load()
df.writeStream.format("console").option("checkpointLocation", "/chk/d").start()
