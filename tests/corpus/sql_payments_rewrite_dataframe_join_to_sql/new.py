"""Match card payments to the orders they settle, within an hour of the order.

Both inputs are Kafka topics from the payment gateway and the checkout service; the matched
rows feed the reconciliation table.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = "kafka.payments.internal:9093"
CHECKPOINT = "s3://payments-lake/_checkpoints/silver/order_payments"


def topic(spark, name, schema):
    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("kafka.security.protocol", "SSL")
        .option("subscribe", name)
        .load()
    )
    return raw.select(F.from_json(F.col("value").cast("string"), schema).alias("r")).select("r.*")


spark = SparkSession.builder.appName("order-payments").getOrCreate()

orders = topic(spark, "checkout.orders", "order_id STRING, merchant_id STRING, amount DOUBLE, ordered_at TIMESTAMP")
payments = topic(spark, "gateway.payments", "payment_id STRING, order_id STRING, merchant_id STRING, paid_amount DOUBLE, paid_at TIMESTAMP")
orders.withWatermark("ordered_at", "2 hours").createOrReplaceTempView("orders")
payments.withWatermark("paid_at", "3 hours").createOrReplaceTempView("payments")

matched = spark.sql("""
    SELECT o.order_id, o.merchant_id, o.amount, p.payment_id, p.paid_amount, p.paid_at
    FROM orders o
    JOIN payments p
      ON o.order_id = p.order_id
     AND p.paid_at BETWEEN o.ordered_at AND o.ordered_at + INTERVAL 1 HOUR
""")

(
    matched.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", CHECKPOINT)
    .toTable("silver.order_payments")
)
spark.streams.awaitAnyTermination()
