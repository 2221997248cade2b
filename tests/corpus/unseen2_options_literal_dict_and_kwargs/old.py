import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", BOOTSTRAP)
       .option("subscribe", "shop.orders")
       .option("startingOffsets", "earliest")
       .option("failOnDataLoss", "false")
       .load())
orders = raw.select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o")).select("o.*")
totals = (orders.withWatermark("event_time", "10 minutes")
          .groupBy(F.window("event_time", "5 minutes"), "region")
          .agg(F.sum("amount").alias("revenue")))
(totals.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/orders_rollup")
    .option("mergeSchema", "true")
    .start("/lake/gold/orders_rollup"))
