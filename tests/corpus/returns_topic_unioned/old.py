# Order ledger: every order event lands in the silver ledger table.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, lit

KAFKA_BOOTSTRAP = "kafka-1.shop:9092"
LEDGER_DDL = "order_id STRING, sku STRING, qty INT, amount DOUBLE, event_time TIMESTAMP"


def read_kafka(spark, topic):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", KAFKA_BOOTSTRAP)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .select(from_json(col("value").cast("string"), LEDGER_DDL).alias("e"))
        .select("e.*")
    )


def main():
    spark = SparkSession.builder.appName("order-ledger").getOrCreate()
    orders = read_kafka(spark, "shop.orders").withColumn("kind", lit("order"))
    (
        orders.writeStream
        .option("checkpointLocation", "/mnt/shop/_checkpoints/ledger")
        .toTable("silver.order_ledger")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
