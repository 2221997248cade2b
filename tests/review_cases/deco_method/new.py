def grouped(fn):
    def wrapper(self, df):
        return fn(self, df).groupBy("value").count()
    return wrapper

class Job:
    @grouped
    def build(self, df):
        return df.filter("x > 0")

    def run(self):
        df = spark.readStream.format("kafka").option("subscribe", "events").load()
        (self.build(df).writeStream.outputMode("update").format("console")
         .option("checkpointLocation", "/chk/e").start())

Job().run()
