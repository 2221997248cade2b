import sys

class Job:
    def setup(self, mode):
        src = spark.readStream.format("kafka").option("subscribe", "events").load()
        self.df = src.dropDuplicates(["key", "value"])
        if mode == "dedup":
            return
        self.df = src.groupBy("key").count()

    def run(self):
        self.setup(sys.argv[1])
        self.df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()

Job().run()
