# Written for streamlint's tests: a Spark Declarative Pipelines file (Spark 4.1+).
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.temporary_view
def orders_parsed():
    return (
        spark.readStream.table("orders_raw")
        .select(F.col("order_id"), F.col("customer_id"), F.col("amount").cast("double"),
                F.col("ts").cast("timestamp"))
    )


@dp.table(name="orders_clean")
def clean_orders():
    return spark.readStream.table("orders_parsed").where("amount > 0")


@dp.table
def revenue_per_customer():
    return (
        spark.readStream.table("orders_clean")
        .withWatermark("ts", "10 minutes")
        .groupBy(F.window("ts", "5 minutes"), "customer_id")
        .agg(F.sum("amount").alias("revenue"))
    )


dp.create_streaming_table("all_orders")


@dp.append_flow(target="all_orders")
def orders_eu():
    return spark.readStream.table("orders_eu")


@dp.append_flow(target="all_orders", name="us")
def orders_us():
    return spark.readStream.table("orders_us")


@dp.materialized_view
def daily_revenue():
    return spark.read.table("orders_clean").groupBy(F.to_date("ts")).agg(F.sum("amount"))


dp.create_streaming_table("customers")
dp.create_auto_cdc_flow(
    target="customers",
    source="customers_cdc",
    keys=["customer_id"],
    sequence_by="updated_at",
    stored_as_scd_type=1,
)
