import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

from dataclasses import dataclass, field

@dataclass
class SourceCfg:
    topic: str = "orders_v2"
    starting: str = "earliest"

@dataclass
class JobCfg:
    source: SourceCfg = field(default_factory=SourceCfg)
    checkpoint: str = "/chk/orders_raw"

def run(cfg: JobCfg):
    raw = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", BOOTSTRAP)
           .option("subscribe", cfg.source.topic)
           .option("startingOffsets", cfg.source.starting).load())
    (raw.selectExpr("CAST(value AS STRING) AS json").writeStream.format("delta")
        .option("checkpointLocation", cfg.checkpoint)
        .toTable("bronze.orders_raw"))

run(JobCfg())
