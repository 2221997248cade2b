"""Gold: daily active devices per app version (complete mode)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

DDL = "device_id STRING, app_version STRING, os STRING, seen_at TIMESTAMP"


def source(spark):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("subscribe", "devices.seen")
        .load()
        .select(F.from_json(F.col("value").cast("string"), DDL).alias("d"))
        .select("d.*")
    )


def main():
    spark = (
        SparkSession.builder.appName("active-devices")
        .config("spark.sql.shuffle.partitions", "32")
        .getOrCreate()
    )
    seen = source(spark)
    active = seen.groupBy(F.to_date("seen_at").alias("day"), "app_version").agg(
        F.approx_count_distinct("device_id").alias("devices")
    )
    (
        active.writeStream.format("delta")
        .outputMode("complete")
        .option("checkpointLocation", "/chk/gold/active_devices")
        .start("/lake/gold/active_devices")
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
