QUERIES = []

def register(df):
    QUERIES.append(df.groupBy("key").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
if spark.conf.get("x") == "1":
    register(df)
for q in QUERIES:
    (q.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/m").start())
