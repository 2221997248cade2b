import sys
cols = ["event_date"]
if "--by-country" in sys.argv:
    cols.append("country")
else:
    cols.append("region")
cols.append("account_id")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.groupBy(*cols).count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
