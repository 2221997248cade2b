QUERIES = []

def register(df):
    QUERIES.append(df.groupBy("key").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
try:
    register(df)
except Exception as e:
    print(e)
for q in QUERIES:
    (q.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/m").start())
