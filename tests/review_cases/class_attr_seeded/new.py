class Job:
    queries = []
    def add(self, df):
        self.queries.append(df.groupBy("value").count())
df = spark.readStream.format("kafka").option("subscribe", "events").load()
Job.queries.append(df.filter("value > 0"))
Job().add(df)
Job.queries[-1].writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()
