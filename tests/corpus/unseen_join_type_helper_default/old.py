import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

def join_payments(orders, payments, how="inner"):
    return orders.join(payments, F.expr(
        "o.order_id = p.order_id AND p.paid_at BETWEEN o.event_time AND o.event_time + INTERVAL 2 HOURS"), how)

orders = (spark.readStream.format("delta").load("/lake/silver/orders")
          .withWatermark("event_time", "1 hour").alias("o"))
payments = (spark.readStream.format("delta").load("/lake/silver/payments")
            .withWatermark("paid_at", "1 hour").alias("p"))
(join_payments(orders, payments).writeStream.format("delta")
    .option("checkpointLocation", "/chk/order_payments")
    .toTable("silver.order_payments"))
