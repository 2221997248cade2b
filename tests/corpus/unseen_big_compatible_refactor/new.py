import os
from dataclasses import dataclass, field
from pyspark.sql import SparkSession
import pyspark.sql.functions as fn
from pyspark.sql.functions import col, window, sum as sum_, count

spark = SparkSession.builder.appName("job").getOrCreate()
ORDER_SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"


@dataclass(frozen=True)
class RevenueConfig:
    topic: str = "orders"
    window: str = "10 minutes"
    watermark: str = "15 minutes"
    keys: list = field(default_factory=lambda: ["customer_id"])
    checkpoint_root: str = "/chk"
    table: str = "gold.revenue_10m"
    kafka_options: dict = field(default_factory=lambda: {
        "maxOffsetsPerTrigger": "50000",
        "startingOffsets": "earliest",
    })

    @property
    def checkpoint(self):
        return f"{self.checkpoint_root}/revenue_10m"


def read_json_topic(topic, schema, options):
    reader = spark.readStream.format("kafka")
    reader = reader.option("subscribe", topic)
    reader = reader.option("kafka.bootstrap.servers",
                           os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092"))
    return (reader.options(**options).load()
            .select(fn.from_json(col("value").cast("string"), schema).alias("payload"))
            .select("payload.*"))


def revenue_by_window(df, cfg):
    return (df.withWatermark("event_time", cfg.watermark)
              .groupBy(window("event_time", cfg.window), *[col(k) for k in cfg.keys])
              .agg(sum_(df.amount).alias("revenue"), count("*").alias("orders")))


class RevenueJob:
    def __init__(self, cfg: RevenueConfig):
        self.cfg = cfg

    def run(self):
        orders = read_json_topic(self.cfg.topic, ORDER_SCHEMA, self.cfg.kafka_options)
        out = orders.transform(revenue_by_window, self.cfg)
        return (out.writeStream
                .trigger(processingTime="1 minute")
                .option("checkpointLocation", self.cfg.checkpoint)
                .outputMode("append")
                .format("delta")
                .toTable(self.cfg.table))


if __name__ == "__main__":
    RevenueJob(RevenueConfig()).run()
