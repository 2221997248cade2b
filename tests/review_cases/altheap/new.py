import sys

class Job:
    pass

def by_key(job):
    job.df = job.src.groupBy("key", "x").count()

def by_value(job):
    job.df = job.src.groupBy("value").count()

job = Job()
job.src = spark.readStream.format("kafka").option("subscribe", "a").load()
setup = by_key if sys.argv[1] == "k" else by_value
setup(job)
job.df.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/h").start()
