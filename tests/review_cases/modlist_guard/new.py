import os
QUERIES = []

def register(df):
    if os.environ.get("SKIP_COUNTS"):
        return
    QUERIES.append(df.groupBy("value").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
register(df)
for q in QUERIES:
    (q.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/m").start())
