import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

class OrdersRollup:
    WINDOW = "5 minutes"

    @staticmethod
    def parse(raw):
        return raw.select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o")).select("o.*")

    @classmethod
    def rollup(cls, df):
        return (df.withWatermark("event_time", "10 minutes")
                .groupBy(F.window("event_time", cls.WINDOW), "region").agg(F.sum("amount").alias("total")))

    @classmethod
    def run(cls):
        raw = spark.readStream.format("kafka").option("kafka.bootstrap.servers", BOOTSTRAP).option("subscribe", "shop.orders").load()
        out = cls.rollup(cls.parse(raw))
        return out.writeStream.format("delta").outputMode("append").option("checkpointLocation", "/chk/rollup").start("/lake/gold/rollup")


if __name__ == "__main__":
    OrdersRollup.run()
