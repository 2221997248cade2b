# Written for streamlint's tests: a Lakeflow / DLT pipeline that fans regional sales feeds into
# one streaming table, one append flow per region, declared in a loop over a literal list.
import dlt
from pyspark.sql.functions import col, lit

REGIONS = ["emea", "amer", "apac"]

dlt.create_streaming_table("sales", comment="sales of every region")


def region_flow(region):
    @dlt.append_flow(target="sales", name=f"sales_{region}")
    def ingest():
        return (
            spark.readStream.format("cloudFiles")
            .option("cloudFiles.format", "json")
            .load(f"/Volumes/retail/landing/sales_{region}")
            .withColumn("region", lit(region))
        )


for region in REGIONS:
    region_flow(region)


@dlt.table(comment="sales above the reporting threshold")
@dlt.expect_or_drop("has_amount", "amount IS NOT NULL")
def large_sales():
    return dlt.read_stream("sales").where(col("amount") > 1000)
