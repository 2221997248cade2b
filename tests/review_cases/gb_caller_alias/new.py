def add(outs, df):
    outs.append(df.groupBy("value").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
queries = []
pending = queries
add(pending, df)
for o in queries:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
