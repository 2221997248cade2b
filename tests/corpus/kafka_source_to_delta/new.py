"""Gold: daily active devices per app version (complete mode)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def source(spark):
    # read the bronze copy instead of Kafka (retention there is only 3 days)
    return spark.readStream.format("delta").load("/lake/bronze/devices_seen").select(
        "device_id", "app_version", "os", "seen_at"
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
