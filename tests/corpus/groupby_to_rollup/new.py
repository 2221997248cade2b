"""Sales totals per region and category, refreshed every minute (complete mode).

Read by the sales dashboard, which overwrites its cache from the gold table.
"""
import logging

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

log = logging.getLogger("sales_totals")

SILVER_SALES = "/lake/silver/sales"
GOLD_TOTALS = "/lake/gold/sales_totals"
CHECKPOINT = "/lake/_checkpoints/sales_totals"


def session() -> SparkSession:
    return (
        SparkSession.builder.appName("sales-totals")
        .config("spark.sql.shuffle.partitions", "16")
        .getOrCreate()
    )


def main() -> None:
    spark = session()
    sales = (
        spark.readStream.format("delta")
        .option("ignoreChanges", "true")
        .load(SILVER_SALES)
        .where(F.col("is_test_store") == F.lit(False))
    )

    # rollup gives the region subtotals and the grand total for free
    totals = sales.rollup("region", "category").agg(
        F.sum("net_amount").alias("net"),
        F.count("*").alias("lines"),
    )

    query = (
        totals.writeStream.format("delta")
        .outputMode("complete")
        .trigger(processingTime="1 minute")
        .option("checkpointLocation", CHECKPOINT)
        .start(GOLD_TOTALS)
    )
    log.info("started %s", query.id)
    query.awaitTermination()


if __name__ == "__main__":
    main()
