import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS value", "timestamp").withWatermark("timestamp", "1 minute")
writer = out.writeStream.format("kafka").option("topic", "o").option("checkpointLocation", "/chk/e")
if sys.argv[1] == "batch":
    writer = writer.trigger(processingTime="10 seconds")
else:
    writer = writer.trigger(continuous="1 second")
writer.start()
