"""Trades per instrument per minute (OHLC bars) for the market-data API."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType, TimestampType

TRADE = StructType([
    StructField("symbol", StringType()),
    StructField("price", DoubleType()),
    StructField("size", LongType()),
    StructField("venue", StringType()),
    StructField("traded_at", TimestampType()),
])


def build_spark():
    return (
        SparkSession.builder.appName("ohlc-bars")
        .config("spark.sql.shuffle.partitions", "64")  # fewer, bigger state partitions
        .config("spark.sql.adaptive.enabled", "false")
        .getOrCreate()
    )


def bars(trades):
    return (
        trades.withWatermark("traded_at", "2 minutes")
        .groupBy(F.window("traded_at", "1 minute"), "symbol")
        .agg(
            F.min_by("price", "traded_at").alias("open"),
            F.max("price").alias("high"),
            F.min("price").alias("low"),
            F.max_by("price", "traded_at").alias("close"),
            F.sum("size").alias("volume"),
        )
    )


def main():
    spark = build_spark()
    trades = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "md-kafka:9092")
        .option("subscribe", "marketdata.trades")
        .load()
        .select(F.from_json(F.col("value").cast("string"), TRADE).alias("t"))
        .select("t.*")
    )
    (
        bars(trades).writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", "s3://md-lake/_chk/ohlc_1m")
        .start("s3://md-lake/gold/ohlc_1m")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
