import sys

class Job:
    def setup(self, mode):
        src = spark.readStream.format("kafka").option("subscribe", "events").load()
        if mode == "a":
            self.df = src.groupBy("key").count()
        else:
            self.df = src.groupBy("value", "x").count()

    def run(self):
        self.setup(sys.argv[1])
        self.df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/e").start()

Job().run()
