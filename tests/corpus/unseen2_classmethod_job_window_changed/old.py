from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()

class EndpointCounts:
    WINDOW = "5 minutes"

    @classmethod
    def build(cls):
        calls = spark.readStream.format("delta").table("silver.api_calls").withWatermark("ts", "10 minutes")
        return calls.groupBy(F.window("ts", cls.WINDOW), "endpoint").count()

    @classmethod
    def start(cls):
        return (cls.build().writeStream.format("delta").outputMode("append")
                .option("checkpointLocation", "/chk/endpoint_counts").toTable("gold.endpoint_counts"))


if __name__ == "__main__":
    EndpointCounts.start().awaitTermination()
