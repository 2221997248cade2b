import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"

def read_orders(topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", BOOTSTRAP)
            .option("subscribe", topic).load()
            .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o")).select("o.*"))

def totals(df):
    return (df.withWatermark("event_time", "10 minutes")
            .groupBy(F.window("event_time", "5 minutes"), "region")
            .agg(F.sum("amount").alias("total")))

t = totals(read_orders("shop.orders"))
q = (t.writeStream.format("delta").outputMode("append")
     .option("checkpointLocation", "/chk/region_totals").start("/lake/gold/region_totals"))
q.awaitTermination()
