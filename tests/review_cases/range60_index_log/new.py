import logging
log = logging.getLogger(__name__)
parts = []
for i in range(60):
    parts.append(f"p{i}")
log.info("parts ready")
df = spark.readStream.format("kafka").option("subscribe", parts[55]).load()
df.writeStream.format("console").option("checkpointLocation", "/chk/p").start()
