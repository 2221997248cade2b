# Written for streamlint's tests: the bronze layer of a scooter-rental pipeline (Spark
# Declarative Pipelines): four Auto Loader tables over the landing volume.
from pyspark import pipelines as dp

LANDING = spark.conf.get("fleet.landing_path")


@dp.table(comment="trip records sent by the scooters at the end of each trip")
def trips_raw():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .option("cloudFiles.inferColumnTypes", "true")
        .load(f"{LANDING}/trips")
    )


@dp.table(comment="repair tickets from the workshop tool")
def repairs_raw():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "csv")
        .option("header", "true")
        .load(f"{LANDING}/repairs")
    )


@dp.table(comment="hourly weather readings per city")
def weather_raw():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "parquet")
        .load(f"{LANDING}/weather")
    )


@dp.table(comment="changes to rider accounts, from the app's database")
def riders_cdc_raw():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .option("cloudFiles.schemaEvolutionMode", "rescue")
        .load(f"{LANDING}/riders_cdc")
    )
