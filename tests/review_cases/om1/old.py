import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
writer = out.writeStream.option("checkpointLocation", "/chk/e").option("path", "/t/e").outputMode("append")
if sys.argv[1] == "debug":
    writer = writer.format("console")
else:
    writer = writer.format("parquet")
writer.start()
