import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

clicks = (spark.readStream.format("delta").table("silver.clicks")
          .withWatermark("event_time", "30 minutes"))
sessions = (clicks.groupBy(F.session_window("event_time", "20 minutes"), "customer_id")
            .agg(F.count("*").alias("clicks")))
(sessions.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/sessions").toTable("gold.sessions"))
