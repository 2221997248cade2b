# Databricks notebook source
# The shape of alexott/dlt-files-in-repos-demo's pipelines/DLT-Pipeline.py: both tables read
# batch (spark.read, dlt.read), so both are materialized views, with no checkpoint.
import dlt

# COMMAND ----------

@dlt.table(comment="raw clickstream")
def clickstream_raw():
    return spark.read.format("json").load("/databricks-datasets/clickstream/")

# COMMAND ----------

@dlt.table(comment="links only")
@dlt.expect_or_drop("only links", "type is not null and type in ('link', 'redlink')")
def clickstream_filtered():
    df = dlt.read("clickstream_raw")
    return df.drop("prev_id", "prev_title")
