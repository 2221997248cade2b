"""Smart-meter readings: energy per substation in 15-minute windows (grid balancing)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

READING = StructType(
    [
        StructField("meter_id", StringType()),
        StructField("substation", StringType()),
        StructField("kwh", DoubleType()),
        StructField("quality", StringType()),
        StructField("read_at", TimestampType()),
    ]
)


def readings(spark):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "grid-kafka:9092")
        .option("subscribe", "ami.readings")
        .load()
        .select(F.from_json(F.col("value").cast("string"), READING).alias("r"))
        .select("r.*")
        .where(F.col("quality") == "GOOD")  # estimated reads come in later via the billing feed
        .filter(F.col("kwh") >= 0)
    )


def substation_load(df):
    return (
        df.withWatermark("read_at", "30 minutes")
        .groupBy(F.window("read_at", "15 minutes"), "substation")
        .agg(F.sum("kwh").alias("kwh"), F.count("meter_id").alias("readings"))
    )


def main():
    spark = SparkSession.builder.appName("substation-load").getOrCreate()
    (
        substation_load(readings(spark))
        .writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", "/grid/_chk/substation_load_15m")
        .start("/grid/gold/substation_load_15m")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
