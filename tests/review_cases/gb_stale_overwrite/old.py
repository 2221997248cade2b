QUERIES = []

def register(df):
    QUERIES.append(df.groupBy("a").count())

def add(outs, df):
    outs.append(df.groupBy("key").count())
    register(df)

df = spark.readStream.format("kafka").option("subscribe", "events").load()
add(QUERIES, df)
for i, q in enumerate(QUERIES):
    (q.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", f"/chk/{i}").start())
