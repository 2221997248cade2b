# Written for streamlint's tests: a Lakeflow / DLT pipeline that keeps a customer table (and its
# history) up to date from change records exported by an operational database.
import dlt
from pyspark.sql.functions import col, expr

CHANGES_PATH = spark.conf.get("shop.customer_changes_path")


@dlt.create_table(comment="customer change records, as the exporter drops them as JSON files")
def customer_changes():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .option("cloudFiles.inferColumnTypes", "true")
        .load(CHANGES_PATH)
    )


@dlt.view
def customer_changes_typed():
    return dlt.read_stream("customer_changes").select(
        "id", "full_name", "email", "city", "op", col("changed_at").cast("timestamp"))


@dlt.table(comment="change records that passed the checks")
@dlt.expect_or_drop("has_id", "id IS NOT NULL")
@dlt.expect_or_drop("known_op", "op IN ('INSERT', 'UPDATE', 'DELETE')")
@dlt.expect("email_looks_valid", "email LIKE '%@%'")
def customer_changes_clean():
    return dlt.read_stream("customer_changes_typed")


dlt.create_streaming_table(name="customers", comment="the latest version of every customer")
dlt.apply_changes(
    target="customers",
    source="customer_changes_clean",
    keys=["id"],  # one row per customer
    sequence_by=col("changed_at"),
    apply_as_deletes=expr("op = 'DELETE'"),
    except_column_list=["op", "changed_at"],
    stored_as_scd_type=1,
)

dlt.create_streaming_table(name="customers_history", comment="every version of every customer")
dlt.apply_changes(
    target="customers_history",
    source="customer_changes_clean",
    keys=["id"],
    sequence_by=col("changed_at"),
    apply_as_deletes=expr("op = 'DELETE'"),
    except_column_list=["op"],
    stored_as_scd_type="2",
)
