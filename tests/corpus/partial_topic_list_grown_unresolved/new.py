# Raw order events to Delta; the topic name comes from the deployment environment.
import os

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("orders-raw").getOrCreate()
ORDERS_TOPIC = os.environ["ORDERS_TOPIC"]

raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", os.environ["KAFKA_BROKERS"])
       .option("subscribe", ",".join([ORDERS_TOPIC, "payments"]))
       .load())

(raw.selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "timestamp")
    .writeStream.format("delta")
    .option("checkpointLocation", "/mnt/chk/orders_raw")
    .start("/mnt/bronze/orders_raw"))
