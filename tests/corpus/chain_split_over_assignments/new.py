"""Flight positions (ADS-B) -> latest positions per aircraft, 1-minute windows, to Kafka."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

POSITION_DDL = "icao24 STRING, callsign STRING, lat DOUBLE, lon DOUBLE, altitude_ft INT, seen_at TIMESTAMP"


def main():
    spark = SparkSession.builder.appName("adsb-latest").getOrCreate()

    reader = spark.readStream.format("kafka")
    reader = reader.option("kafka.bootstrap.servers", "adsb-kafka:9092")
    reader = reader.option("subscribe", "adsb.positions")
    reader = reader.option("maxOffsetsPerTrigger", 100000)
    raw = reader.load()

    positions = raw.select(F.from_json(F.col("value").cast("string"), POSITION_DDL).alias("p"))
    positions = positions.select("p.*")
    airborne = positions.where(F.col("altitude_ft") > 0)
    airborne = airborne.withWatermark("seen_at", "2 minutes")

    grouped = airborne.groupBy(F.window("seen_at", "1 minute"), "icao24")
    latest = grouped.agg(
        F.max_by(F.struct("lat", "lon", "altitude_ft", "callsign"), "seen_at").alias("last")
    )
    records = latest.select(
        F.col("icao24").alias("key"),
        F.to_json(F.struct("window", "last")).alias("value"),
    )

    writer = records.writeStream.format("kafka")
    writer = writer.option("kafka.bootstrap.servers", "adsb-kafka:9092")
    writer = writer.option("topic", "adsb.latest_positions")
    writer = writer.option("checkpointLocation", "/chk/adsb/latest_positions")
    writer = writer.outputMode("update")
    query = writer.start()
    query.awaitTermination()


if __name__ == "__main__":
    main()
