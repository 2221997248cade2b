"""Databricks job: revenue per customer segment (Kafka orders joined with the customers table
over JDBC) and the refunds feed (a Delta table) copied to bronze with an ingestion time.
Credentials come from secrets, the environment and the command line; every host here is
unreachable on purpose."""
import argparse
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

parser = argparse.ArgumentParser()
parser.add_argument("--env", required=True)
parser.add_argument("run_date")
args = parser.parse_args()

KAFKA_PASSWORD = dbutils.secrets.get(scope="kafka", key="orders-password")  # noqa: F821
JDBC_URL = os.environ["CUSTOMERS_JDBC_URL"]
BROKERS = f"broker-1.{args.env}.unreachable.invalid:9093"
ORDER_DDL = "order_id STRING, customer_id STRING, total DOUBLE, created_at TIMESTAMP"


def write_segments(batch: DataFrame, batch_id: int) -> None:
    # Upsert instead of overwrite: the dashboard reads the table while we write.
    batch.write.format("jdbc").option("url", JDBC_URL).option(
        "dbtable", "segment_revenue_staging").mode("append").save()
    batch.sparkSession.sql("CALL merge_segment_revenue()")


spark = SparkSession.builder.appName(f"segments-{args.run_date}").getOrCreate()
customers = (
    spark.read.format("jdbc").option("url", JDBC_URL).option("dbtable", "customers")
    .option("password", dbutils.secrets.get("db", "customers-password"))  # noqa: F821
    .load()
)
orders = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("kafka.sasl.jaas.config", f"PlainLoginModule required password='{KAFKA_PASSWORD}';")
    .option("subscribe", "orders")
    .load()
    .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
    .select("o.*")
)
per_segment = (
    orders.join(customers, "customer_id")
    .groupBy("segment")
    .agg(F.sum("total").alias("revenue"))
)
per_segment.writeStream.foreachBatch(write_segments).outputMode("update").option(
    "checkpointLocation", "dbfs:/checkpoints/segment_revenue").start()

refunds = spark.readStream.table("finance.refunds")
# ingested_at comes from the clock: it differs between any two runs of the same code.
refunds.withColumn("ingested_at", F.current_timestamp()).writeStream.format("delta") \
    .option("checkpointLocation", "dbfs:/checkpoints/refunds_bronze") \
    .toTable("finance.refunds_bronze")

dbutils.fs.rm("dbfs:/tmp/segments-staging", True)  # noqa: F821
spark.streams.awaitAnyTermination()
