# Written for streamlint's tests: the payments pipeline of dlt_payments.py on the Spark
# Declarative Pipelines names (`from pyspark import pipelines as dp`).
from pyspark import pipelines as dp
from pyspark.sql import functions as F

LANDING = spark.conf.get("payments.landing_path")

CHECKS = {"positive_amount": "amount > 0", "has_currency": "currency IS NOT NULL"}


@dp.table(comment="card payments as Auto Loader finds them")
def raw_payments():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .option("cloudFiles.schemaHints", "amount DOUBLE")
        .load(f"{LANDING}/payments")
    )


@dp.table(comment="invoices exported once a day from the old billing system")
def raw_legacy_invoices():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "csv")
        .option("header", "true")
        .load(f"{LANDING}/legacy_invoices")
    )


@dp.materialized_view(comment="exchange rates to EUR")
def eur_rates():
    return spark.read.format("csv").option("header", "true").load(f"{LANDING}/eur_rates")


@dp.table(comment="payments that passed every check, in EUR")
@dp.expect_all_or_drop(CHECKS)
def payments_clean():
    return (
        spark.readStream.table("raw_payments")
        .join(spark.read.table("eur_rates"), "currency")
        .withColumn("amount_eur", F.col("amount") * F.col("rate"))
        .select("payment_id", "merchant_id", "currency", "amount", "amount_eur", "paid_at")
    )


@dp.table(comment="payments that failed a check, kept for inspection")
@dp.expect_all_or_drop({"fails_a_check": "amount <= 0 OR currency IS NULL"})
def payments_quarantine():
    return spark.readStream.table("raw_payments")


@dp.table(comment="the old invoices, renamed to the new vocabulary")
def legacy_invoices():
    return (
        spark.readStream.table("raw_legacy_invoices")
        .withColumnRenamed("inv_no", "invoice_id")
        .withColumnRenamed("cust", "merchant_id")
        .select("invoice_id", "merchant_id", "total", "issued_on")
    )


@dp.materialized_view(comment="revenue per merchant")
def revenue_per_merchant():
    return (
        spark.read.table("payments_clean")
        .groupBy("merchant_id")
        .agg(F.sum("amount_eur").alias("revenue_eur"), F.count("*").alias("payments"))
    )
