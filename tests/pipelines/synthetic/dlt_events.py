# Written for streamlint's tests: a Databricks Lakeflow / DLT pipeline notebook exported as .py.
import dlt
from pyspark.sql.functions import col, count, expr


@dlt.table(comment="raw events from the landing zone")
def events_raw():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .load("/Volumes/main/events/landing")
    )


@dlt.view
def events_typed():
    return dlt.read_stream("events_raw").select("event_id", "user_id", "kind", col("ts").cast("timestamp"))


@dlt.table
@dlt.expect_or_drop("valid_user", "user_id IS NOT NULL")
@dlt.expect("known_kind", "kind IN ('click', 'view')")
def events_clean():
    return dlt.read_stream("events_typed")


@dlt.table
def events_per_user():
    return (
        dlt.read_stream("events_clean")
        .withWatermark("ts", "1 hour")
        .groupBy("user_id", expr("window(ts, '1 hour')"))
        .agg(count("*").alias("events"))
    )


@dlt.table
def user_dim():
    return dlt.read("users_snapshot")


dlt.create_streaming_table("users")
dlt.apply_changes(
    target="users",
    source="users_cdc",
    keys=["user_id"],
    sequence_by=col("changed_at"),
    except_column_list=["operation"],
)
