import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

def merge(first, second):
    return first.unionByName(second, allowMissingColumns=True)

def src(path):
    return spark.readStream.format("delta").load(path)

web = src("/lake/silver/web_orders")
app = src("/lake/silver/app_orders")
allo = merge(second=app, first=web)
(allo.writeStream.format("delta")
    .option("checkpointLocation", "/chk/all_orders")
    .toTable("silver.all_orders"))
