import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

orders = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", BOOTSTRAP)
          .option("subscribe", "shop.orders")
          .load()
          .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
          .select("o.*")
          .withWatermark("event_time", "10 minutes"))

agg = (orders.groupBy("region")
       .agg(F.stddev("amount").alias("sd"), F.variance("amount").alias("var"), F.sum("amount").alias("total")))

(agg.writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/region_totals")
    .start("/lake/gold/region_totals"))
