# Written for streamlint's tests: the gold layer of the scooter-rental pipeline (Spark
# Declarative Pipelines): materialized views only, recomputed on every update.
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.materialized_view(comment="use and repair cost per scooter and day")
def scooter_daily():
    trips = spark.read.table("trips").alias("t")
    repairs = spark.read.table("repairs").alias("r")
    return (
        trips.join(repairs, F.col("t.scooter_id") == F.col("r.scooter_id"), "left")
        .groupBy("t.trip_date", "t.scooter_id")
        .agg(F.count("t.trip_id").alias("trips"), F.sum("r.cost").alias("repair_cost"))
    )


@dp.temporary_view
def hourly_weather():
    return spark.read.table("weather").withColumn("hour", F.date_trunc("hour", "reading_at"))


@dp.table(comment="trips per hour next to the weather of that hour")
def trips_and_weather():
    return (
        spark.read.table("trips_per_hour")
        .withColumn("hour", F.col("window.start"))
        .join(spark.read.table("hourly_weather"), ["city", "hour"])
        .select("city", "hour", "trips", "temperature_c", "rain_mm")
    )


@dp.materialized_view(comment="riders who rode in the last 30 days")
def active_riders():
    return (
        spark.read.table("trips")
        .where(F.col("trip_date") >= F.date_sub(F.current_date(), 30))
        .join(spark.read.table("riders"), "rider_id")
        .groupBy("rider_id", "plan")
        .agg(F.count("*").alias("trips"))
    )
