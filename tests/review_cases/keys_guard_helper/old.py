import sys
def add_key(keys, name):
    if not name:
        return
    keys.append(name)
keys = ["user_id"]
add_key(keys, sys.argv[1] if len(sys.argv) > 1 else None)
add_key(keys, "region")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.groupBy(*keys).count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
