"""Flight positions (ADS-B) -> latest positions per aircraft, 1-minute windows, to Kafka."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

POSITION_DDL = "icao24 STRING, callsign STRING, lat DOUBLE, lon DOUBLE, altitude_ft INT, seen_at TIMESTAMP"


def main():
    spark = SparkSession.builder.appName("adsb-latest").getOrCreate()
    (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "adsb-kafka:9092")
        .option("subscribe", "adsb.positions")
        .option("maxOffsetsPerTrigger", 100000)
        .load()
        .select(F.from_json(F.col("value").cast("string"), POSITION_DDL).alias("p"))
        .select("p.*")
        .where(F.col("altitude_ft") > 0)
        .withWatermark("seen_at", "2 minutes")
        .groupBy(F.window("seen_at", "1 minute"), "icao24")
        .agg(F.max_by(F.struct("lat", "lon", "altitude_ft", "callsign"), "seen_at").alias("last"))
        .select(
            F.col("icao24").alias("key"),
            F.to_json(F.struct("window", "last")).alias("value"),
        )
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", "adsb-kafka:9092")
        .option("topic", "adsb.latest_positions")
        .option("checkpointLocation", "/chk/adsb/latest_positions")
        .outputMode("update")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
