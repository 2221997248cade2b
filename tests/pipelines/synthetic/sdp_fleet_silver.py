# Written for streamlint's tests: the silver layer of the scooter-rental pipeline (Spark
# Declarative Pipelines): checked and deduplicated tables, an hourly aggregate, and the riders
# table kept by an AUTO CDC flow.
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.table(name="trips", comment="one row per finished trip")
@dp.expect_or_drop("has_scooter", "scooter_id IS NOT NULL")
@dp.expect("plausible_duration", "duration_min BETWEEN 0 AND 600")
def trips():
    return (
        spark.readStream.table("trips_raw")
        .withColumn("started_at", F.col("started_at").cast("timestamp"))
        .withColumn("ended_at", F.col("ended_at").cast("timestamp"))
        .withColumn("duration_min",
                    (F.unix_timestamp("ended_at") - F.unix_timestamp("started_at")) / 60)
        .withColumn("trip_date", F.to_date("started_at"))
        .withWatermark("ended_at", "2 hours")
        .dropDuplicates(["trip_id", "ended_at"])
    )


@dp.table(comment="trips ended per city and hour")
def trips_per_hour():
    return (
        spark.readStream.table("trips")
        .groupBy(F.window("ended_at", "1 hour"), "city")
        .agg(F.count("*").alias("trips"), F.avg("duration_min").alias("avg_minutes"))
    )


@dp.temporary_view
def repairs_typed():
    return spark.readStream.table("repairs_raw").select(
        "ticket_id", "scooter_id", "part", F.col("cost").cast("double"),
        F.col("opened_at").cast("timestamp"))


@dp.table(comment="repair tickets with a scooter and a cost")
@dp.expect_all_or_drop({"has_scooter": "scooter_id IS NOT NULL", "has_cost": "cost >= 0"})
def repairs():
    return spark.readStream.table("repairs_typed")


@dp.table(name="weather", comment="weather readings in metric units")
def weather():
    return (
        spark.readStream.table("weather_raw")
        .withColumn("temperature_c", (F.col("temperature_f") - 32) * 5 / 9)
        .select("city", "reading_at", "temperature_c", "rain_mm")
    )


dp.create_streaming_table("riders", expect_all_or_drop={"has_rider": "rider_id IS NOT NULL"})
dp.create_auto_cdc_flow(
    target="riders",
    source="riders_cdc_raw",
    keys=["rider_id"],
    sequence_by=F.col("updated_at"),
    except_column_list=["_rescued_data"],
    stored_as_scd_type=1,
)
