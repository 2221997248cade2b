# Match parcel scans with delivery confirmations (stream-stream join, time-bounded).
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, expr, from_json

SCAN_DDL = "scan_id STRING, parcel_id STRING, hub STRING, scan_time TIMESTAMP"
DELIVERY_DDL = "delivery_id STRING, delivered_parcel_id STRING, courier STRING, delivered_time TIMESTAMP"
BROKERS = "kafka-logistics:9092"


def stream(spark, topic, ddl, alias):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", BROKERS)
        .option("subscribe", topic)
        .load()
        .select(from_json(col("value").cast("string"), ddl).alias(alias))
        .select(f"{alias}.*")
    )


def main():
    spark = SparkSession.builder.appName("scan-to-delivery").getOrCreate()
    scans = stream(spark, "hub.scans", SCAN_DDL, "s").withWatermark("scan_time", "6 hours")
    deliveries = stream(spark, "courier.deliveries", DELIVERY_DDL, "d").withWatermark("delivered_time", "6 hours")

    matched = scans.join(
        deliveries,
        expr("""
            delivered_parcel_id = parcel_id AND
            delivered_time BETWEEN scan_time AND scan_time + interval 72 hours
        """),
        "inner",
    )
    (
        matched.writeStream.format("delta")
        .option("checkpointLocation", "/lake/_chk/scan_to_delivery")
        .start("/lake/silver/scan_to_delivery")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
