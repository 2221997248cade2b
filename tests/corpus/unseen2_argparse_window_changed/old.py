import argparse
from pyspark.sql import SparkSession, functions as F


class MetricsJob:
    def __init__(self, args):
        self.args = args
        self.spark = SparkSession.builder.appName("metrics").getOrCreate()

    def source(self):
        return (self.spark.readStream.format("kafka")
                .option("kafka.bootstrap.servers", self.args.brokers)
                .option("subscribe", self.args.topic).load()
                .select(F.from_json(F.col("value").cast("string"), "host STRING, cpu DOUBLE, ts TIMESTAMP").alias("m"))
                .select("m.*"))

    def run(self):
        m = self.source().withWatermark("ts", "5 minutes")
        agg = m.groupBy(F.window("ts", "1 minute"), "host").agg(F.avg("cpu").alias("cpu"))
        return (agg.writeStream.format("delta").outputMode("append")
                .option("checkpointLocation", self.args.checkpoint)
                .start(self.args.output))


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--brokers", default="kafka:9092")
    p.add_argument("--topic", default="host.metrics")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--output", required=True)
    return p.parse_args(argv)


if __name__ == "__main__":
    MetricsJob(parse_args()).run().awaitTermination()
