# Written for streamlint's tests: a Lakeflow / DLT payments pipeline on `import dlt` (bronze
# Auto Loader tables, a checked silver table and its quarantine, materialized views).
import dlt
from pyspark.sql import functions as F

LANDING = spark.conf.get("payments.landing_path")

CHECKS = {"positive_amount": "amount > 0", "has_currency": "currency IS NOT NULL"}


@dlt.table(comment="card payments as Auto Loader finds them")
def raw_payments():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .option("cloudFiles.schemaHints", "amount DOUBLE")
        .load(f"{LANDING}/payments")
    )


@dlt.table(comment="invoices exported once a day from the old billing system")
def raw_legacy_invoices():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "csv")
        .option("header", "true")
        .load(f"{LANDING}/legacy_invoices")
    )


@dlt.table(comment="exchange rates to EUR, reloaded on every update")
def eur_rates():
    return spark.read.format("csv").option("header", "true").load(f"{LANDING}/eur_rates")


@dlt.table(comment="payments that passed every check, in EUR")
@dlt.expect_all_or_drop(CHECKS)
def payments_clean():
    return (
        dlt.read_stream("raw_payments")
        .join(dlt.read("eur_rates"), "currency")
        .withColumn("amount_eur", F.col("amount") * F.col("rate"))
        .select("payment_id", "merchant_id", "currency", "amount", "amount_eur", "paid_at")
    )


@dlt.table(comment="payments that failed a check, kept for inspection")
@dlt.expect_all_or_drop({"fails_a_check": "amount <= 0 OR currency IS NULL"})
def payments_quarantine():
    return dlt.read_stream("raw_payments")


@dlt.table(comment="the old invoices, renamed to the new vocabulary")
def legacy_invoices():
    return (
        spark.readStream.table("raw_legacy_invoices")
        .withColumnRenamed("inv_no", "invoice_id")
        .withColumnRenamed("cust", "merchant_id")
        .select("invoice_id", "merchant_id", "total", "issued_on")
    )


@dlt.table(comment="revenue per merchant")
def revenue_per_merchant():
    return (
        dlt.read("payments_clean")
        .groupBy("merchant_id")
        .agg(F.sum("amount_eur").alias("revenue_eur"), F.count("*").alias("payments"))
    )
