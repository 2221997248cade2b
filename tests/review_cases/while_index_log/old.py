import logging
log = logging.getLogger(__name__)
topics = ["orders", "payments", "refunds"]
streams = []
i = 0
while i < len(topics):
    streams.append(spark.readStream.format("kafka").option("subscribe", topics[i]).load())
    i += 1
log.info("built streams")
streams[0].writeStream.format("console").option("checkpointLocation", "/chk/orders").start()
streams[2].writeStream.format("console").option("checkpointLocation", "/chk/refunds").start()
