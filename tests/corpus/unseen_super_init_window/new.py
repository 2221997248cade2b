import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

class WindowedJob:
    def __init__(self, name, window, watermark="10 minutes"):
        self.name = name
        self.window = window
        self.watermark = watermark

    def build(self, df):
        return (df.withWatermark("event_time", self.watermark)
                  .groupBy(F.window("event_time", self.window), "customer_id")
                  .agg(F.sum("amount").alias("revenue")))

    def run(self):
        src = spark.readStream.format("delta").load("/lake/silver/orders")
        (self.build(src).writeStream.format("delta").outputMode("append")
            .option("checkpointLocation", f"/chk/{self.name}")
            .start(f"/lake/gold/{self.name}"))


class RevenueJob(WindowedJob):
    def __init__(self):
        super().__init__("revenue", window="10 minutes")


if __name__ == "__main__":
    RevenueJob().run()
