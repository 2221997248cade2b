import os
topics = []
if os.environ.get("ENV") == "prod":
    topics.append("orders")
else:
    topics.append("orders-staging")
topics.append("refunds")
df = spark.readStream.format("kafka").option("subscribe", ",".join(topics)).load()
df.groupBy("key").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
