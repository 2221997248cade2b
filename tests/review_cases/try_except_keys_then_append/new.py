keys = ["event_date"]
try:
    tz = dbutils.widgets.get("tz")
    keys.append("local_hour")
except Exception:
    keys.append("utc_hour")
keys.append("user_id")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.groupBy(*keys).count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
