# Written for streamlint's tests: CDC ingestion of several tables whose names are a pipeline
# parameter (Spark Declarative Pipelines). Each table gets a raw Auto Loader table and an AUTO
# CDC flow, declared by a helper called in a loop; one table also keeps its history (SCD2).
from pyspark import pipelines as dp
from pyspark.sql import functions as F

LANDING = spark.conf.get("cdc.landing_path")
TABLES = spark.conf.get("cdc.tables").split(",")


def ingest(table):
    @dp.table(name=f"{table}_cdc_raw", comment=f"change records of {table}")
    def raw():
        return (
            spark.readStream.format("cloudFiles")
            .option("cloudFiles.format", "json")
            .load(f"{LANDING}/{table}")
        )

    dp.create_streaming_table(table)
    dp.create_auto_cdc_flow(
        target=table,
        source=f"{table}_cdc_raw",
        keys=["id"],  # every source table has an `id` column
        sequence_by=F.col("op_ts"),
        apply_as_deletes=F.expr("op = 'D'"),
        except_column_list=["op", "op_ts"],
        stored_as_scd_type=1,
    )


for name in TABLES:
    ingest(name)


dp.create_streaming_table("accounts_history")
dp.create_auto_cdc_flow(
    target="accounts_history",
    source="accounts_cdc_raw",
    keys=["account_id"],
    sequence_by=F.col("op_ts"),
    apply_as_deletes=F.expr("op = 'D'"),
    stored_as_scd_type=2,
)
