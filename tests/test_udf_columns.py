"""Python UDFs with a declared result type (extract/pyspark_api/udfs.py): `udf(f, StructType)`
aliased and flattened (`select("data.*")`) gives the struct's fields as columns, so a later
`withColumn` of one of them replaces it rather than adding a column. From a real commit of the
history corpus (a normalising UDF on a field of a parsed struct), beside the shapes where the
change does matter. The Spark test checks the columns and types Spark itself gives."""

from __future__ import annotations

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text


def findings(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return [(f.code, f.verdict) for f in report.findings]


PARSED = """
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, udf, to_timestamp
from pyspark.sql.types import StructType, StructField, StringType

def parse(raw):
    return {"id": raw[:8], "title": raw[8:], "dt": None}

spark = SparkSession.builder.getOrCreate()
fields = StructType([StructField("id", StringType(), True),
                     StructField("title", StringType(), True),
                     StructField("dt", StringType(), True)])
parse_udf = udf(parse, fields)
rows = spark.readStream.format("kafka").option("subscribe", "edits").load()
parsed = rows.select(parse_udf(col("value").cast("string")).alias("data")).select("data.*")
out = parsed.withColumn("dt", to_timestamp(col("dt")))
out.writeStream.format("delta").option("checkpointLocation", "/chk/edits").start("/t/edits")
"""
NORMALISED = PARSED.replace(
    "parse_udf = udf(parse, fields)",
    "parse_udf = udf(parse, fields)\nnorm_udf = udf(lambda s: s.lower(), StringType())",
).replace(
    "out = parsed.withColumn",
    'out = parsed.withColumn("id", norm_udf(col("id"))).filter(col("id").isNotNull())'
    "\nout = out.withColumn",
)


def test_a_field_of_a_udf_struct_replaced_by_a_udf_of_its_type_is_compatible() -> None:
    assert [code for code, _ in findings(PARSED, NORMALISED)] == ["PR01", "PR02"]
    assert all(verdict == "compatible" for _, verdict in findings(PARSED, NORMALISED))


def test_the_struct_fields_are_the_columns() -> None:
    (query,) = extract_text(PARSED, "job.py").queries
    assert query.output_columns == ("id", "title", "dt")


def test_a_ddl_return_type_reads_as_the_same_struct() -> None:
    ddl = PARSED.replace("udf(parse, fields)", 'udf(parse, "id string, title string, dt string")')
    assert findings(PARSED, ddl) == []


def test_a_field_added_to_the_udf_struct_still_fires() -> None:
    added = PARSED.replace('StructField("dt", StringType(), True)',
                           'StructField("dt", StringType()), StructField("lang", StringType())')
    assert findings(PARSED, added) == [("PR03", "review")]


def test_a_field_retyped_by_a_udf_still_fires() -> None:
    retyped = NORMALISED.replace("s.lower(), StringType()", "len(s), IntegerType()").replace(
        "StringType\n", "StringType, IntegerType\n")
    assert ("PR03", "review") in findings(PARSED, retyped)


def test_a_return_type_known_only_at_run_time_stays_unresolved() -> None:
    unknown = PARSED.replace("udf(parse, fields)", "udf(parse, load_schema())")
    assert findings(PARSED, unknown) == [("PR03", "review")]


@pytest.mark.spark
def test_spark_flattens_a_udf_struct_into_its_fields(spark) -> None:  # type: ignore[no-untyped-def]
    from pyspark.sql.functions import col, udf
    from pyspark.sql.types import StringType, StructField, StructType

    fields = StructType([StructField("id", StringType()), StructField("dt", StringType())])
    rows = spark.readStream.format("rate").load()
    parsed = rows.select(udf(lambda v: None, fields)(col("value")).alias("data")).select("data.*")
    assert [(f.name, f.dataType.simpleString()) for f in parsed.schema] == [
        ("id", "string"), ("dt", "string")]
    ddl = rows.select(udf(lambda v: None, "id string, dt string")(col("value")).alias("data"))
    assert ddl.select("data.*").schema == parsed.schema
    replaced = parsed.withColumn("id", udf(lambda s: s)(col("id")))  # StringType by default
    assert [(f.name, f.dataType.simpleString()) for f in replaced.schema] == [
        ("id", "string"), ("dt", "string")]
