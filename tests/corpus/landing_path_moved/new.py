# Weather station observations, dropped as JSON files by the SFTP bridge.
from pyspark.sql import SparkSession
import pyspark.sql.functions as f
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

OBS_SCHEMA = StructType(
    [
        StructField("station", StringType()),
        StructField("temperature_c", DoubleType()),
        StructField("humidity", DoubleType()),
        StructField("wind_ms", DoubleType()),
        StructField("observed_at", TimestampType()),
    ]
)


class Paths:
    landing = "wasbs://weather@meteo.blob.core.windows.net/landing/v2/observations"
    silver = "wasbs://weather@meteo.blob.core.windows.net/silver/observations"
    checkpoint = "wasbs://weather@meteo.blob.core.windows.net/_checkpoints/observations"


def run(spark):
    obs = spark.readStream.schema(OBS_SCHEMA).option("multiLine", "false").json(Paths.landing)
    obs = obs.withColumn("temperature_f", f.col("temperature_c") * 9 / 5 + 32)
    return (
        obs.writeStream.format("delta")
        .option("checkpointLocation", Paths.checkpoint)
        .start(Paths.silver)
    )


if __name__ == "__main__":
    run(SparkSession.builder.appName("weather-obs").getOrCreate()).awaitTermination()
