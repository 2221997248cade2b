# Gold daily account balances from the silver transactions table. Scheduled hourly by the
# workflow; each run processes what is available and stops.
from pyspark.sql import SparkSession
import pyspark.sql.functions as f

TXNS = "finance.silver.transactions"
BALANCES = "finance.gold.daily_balances"


def daily_balances(txns):
    return (
        txns.where(f.col("status") == "POSTED")
        .withWatermark("posted_at", "1 day")
        .groupBy(f.window("posted_at", "1 day").alias("day"), "account_id")
        .agg(f.sum("amount").alias("net_movement"), f.count("*").alias("transactions"))
    )


def main():
    spark = SparkSession.builder.appName("daily-balances").getOrCreate()
    txns = spark.readStream.table(TXNS)

    query = (
        daily_balances(txns).writeStream
        .outputMode("append")
        .option("checkpointLocation", "/Volumes/finance/gold/_chk/daily_balances")
        .trigger(availableNow=True)
        .toTable(BALANCES)
    )
    query.awaitTermination()


if __name__ == "__main__":
    main()
