import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

ENV = os.getenv("DEPLOY_ENV", "dev")

if ENV == "prod":
    TOPIC = "orders"
    CHECKPOINT = "/chk/prod/orders"
else:
    TOPIC = "orders_dev"
    CHECKPOINT = "/chk/dev/orders"

raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", BOOTSTRAP)
       .option("subscribe", TOPIC).load())
(raw.selectExpr("CAST(value AS STRING) AS json").writeStream.format("delta")
    .option("checkpointLocation", CHECKPOINT)
    .toTable("bronze.orders_raw"))
