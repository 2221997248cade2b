import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

from enum import Enum

class Topic(Enum):
    ORDERS = "orders"
    PAYMENTS = "payments"

raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", BOOTSTRAP)
       .option("subscribe", Topic.ORDERS.value).load())
(raw.selectExpr("CAST(value AS STRING) AS json").writeStream.format("delta")
    .option("checkpointLocation", "/chk/orders_raw")
    .toTable("bronze.orders_raw"))
