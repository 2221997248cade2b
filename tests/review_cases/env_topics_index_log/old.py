import logging
import os
log = logging.getLogger(__name__)
topics = []
for t in os.environ["TOPICS"].split(","):
    topics.append(t.strip())
log.info("built topics")
a = spark.readStream.format("kafka").option("subscribe", topics[0]).load()
a.writeStream.format("console").option("checkpointLocation", "/chk/a").start()
b = spark.readStream.format("kafka").option("subscribe", topics[1]).load()
b.writeStream.format("console").option("checkpointLocation", "/chk/b").start()
