keys = ["user_id"]
try:
    import tenant_conf
    keys.append(tenant_conf.TENANT_COLUMN)
except ImportError:
    pass
keys.append("region")
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.groupBy(*keys).count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/a").start()
