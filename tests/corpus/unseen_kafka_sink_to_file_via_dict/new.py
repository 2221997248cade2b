import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

SINK = {"format": "parquet", "options": {"path": "/lake/out/orders"}}
src = spark.readStream.format("delta").load("/lake/silver/orders")
w = src.selectExpr("order_id AS key", "to_json(struct(*)) AS value").writeStream.format(SINK["format"])
for k, v in SINK["options"].items():
    w = w.option(k, v)
w.option("checkpointLocation", "/chk/orders_out").start()
