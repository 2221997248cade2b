# Re-key enriched order events and publish them for the downstream services.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

IN_TOPIC = "orders.enriched"
OUT_TOPIC = "orders.by_customer"
BROKERS = "kafka-1:9092,kafka-2:9092,kafka-3:9092"
CHECKPOINT = "hdfs:///streaming/checkpoints/orders_by_customer"


def main():
    spark = SparkSession.builder.appName("orders-rekey").getOrCreate()
    orders = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", IN_TOPIC)
        .load()
    )
    parsed = orders.select(
        F.get_json_object(F.col("value").cast("string"), "$.customer_id").alias("customer_id"),
        F.col("value"),
    )
    out = parsed.select(F.col("customer_id").alias("key"), "value")
    (
        out.writeStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("topic", OUT_TOPIC)
        .option("checkpointLocation", CHECKPOINT)
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
