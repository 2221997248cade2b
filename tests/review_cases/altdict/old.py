import sys

def prod(opts):
    opts["subscribe"] = "events"

def replay(opts):
    opts["subscribe"] = "events-replay"

fill = prod if sys.argv[1] == "prod" else replay
opts = {"kafka.bootstrap.servers": "h:9092"}
fill(opts)
df = spark.readStream.format("kafka").options(**opts).load()
df.writeStream.format("console").option("checkpointLocation", "/chk/a").start()
