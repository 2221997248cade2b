import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

from functools import reduce
from pyspark.sql import DataFrame

TOPICS = ["orders", "payments"]

def read_topic(topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", BOOTSTRAP)
            .option("subscribe", topic).load()
            .selectExpr("CAST(value AS STRING) AS json", "topic"))

streams = [read_topic(t) for t in TOPICS]
all_events = reduce(DataFrame.unionByName, streams)
(all_events.writeStream.format("delta")
    .option("checkpointLocation", "/chk/all_events")
    .toTable("bronze.all_events"))
