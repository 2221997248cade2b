"""Invoice events -> silver.invoices (append), read through a shared options dict."""
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

SOURCE_TOPIC = "billing.invoices.v1"

KAFKA_OPTIONS = {
    "kafka.bootstrap.servers": os.environ.get("KAFKA_BROKERS", "kafka-billing:9092"),
    "kafka.security.protocol": "SASL_SSL",
    "kafka.sasl.mechanism": "PLAIN",
    "subscribe": SOURCE_TOPIC,
    "startingOffsets": "earliest",
    "failOnDataLoss": "false",
}

INVOICE_DDL = "invoice_id STRING, customer_id STRING, total DECIMAL(12,2), currency STRING, issued_at TIMESTAMP"


def main():
    spark = SparkSession.builder.appName("silver-invoices").getOrCreate()
    raw = spark.readStream.format("kafka").options(**KAFKA_OPTIONS).load()
    invoices = raw.select(
        F.from_json(F.col("value").cast("string"), INVOICE_DDL).alias("i"),
        F.col("timestamp").alias("kafka_ts"),
    ).select("i.*", "kafka_ts")
    (
        invoices.writeStream.option("checkpointLocation", "/chk/billing/silver_invoices")
        .toTable("billing.silver.invoices")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
