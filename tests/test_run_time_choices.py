"""Run-time values and choices that no verdict depends on, from real commits of the history
corpus: an output mode from a job argument on a stateless query, a dict of CSV writer options
built from the arguments by a known table of option names, a comprehension a formatter
wrapped over lines. Each beside the shape where the value does matter."""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text


def findings(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return [(f.code, f.verdict) for f in report.findings]


TEMPLATE = """
import sys
args = dict(a.split("=", 1) for a in sys.argv[1:])
df = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", args["brokers"])
      .option("subscribe", args["topic"]).load())
df = df.selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)")
df.writeStream.format("bigquery").outputMode("append") \\
    .option("checkpointLocation", args["checkpoint"]).option("table", args["table"]).start()
"""


def test_an_output_mode_from_a_job_argument_on_a_stateless_query_is_compatible() -> None:
    new = TEMPLATE.replace('outputMode("append")', 'outputMode(args["output_mode"])')
    assert findings(TEMPLATE, new) == [("QY08", "compatible")]


def test_an_output_mode_from_a_job_argument_on_an_aggregation_is_a_question() -> None:
    counted = TEMPLATE.replace("df.writeStream", 'df.groupBy("key").count().writeStream')
    new = counted.replace('outputMode("append")', 'outputMode(args["output_mode"])')
    assert findings(counted, new) == [("UN02", "review")]


CSV = """
import sys
CSV_OPTIONS = {"gcs.output.sep": "sep", "gcs.output.header": "header",
               "gcs.output.compression": "compression", "gcs.output.quote": "quote"}
args = dict(a.split("=", 1) for a in sys.argv[1:])
df = spark.readStream.format("kafka").option("subscribe", args["topic"]).load()
writer = df.writeStream.format("csv")
@OPTS@
writer.option("checkpointLocation", args["checkpoint"]).option("path", args["out"]).start()
"""
ONE_LINE = ("spark_options = {CSV_OPTIONS[k]: v for k, v in args.items() "
            "if k in CSV_OPTIONS and v}\nwriter = writer.options(**spark_options)")
WRAPPED = ("spark_options = {\n    CSV_OPTIONS[k]: v\n    for k, v in args.items()\n"
           "    if k in CSV_OPTIONS and v\n}\nwriter = writer.options(**spark_options)")


def test_csv_options_from_a_known_table_of_names_are_compatible() -> None:
    old = CSV.replace("@OPTS@\n", "")
    assert findings(old, CSV.replace("@OPTS@", ONE_LINE)) == [("SK09", "compatible")]


def test_a_comprehension_wrapped_over_lines_is_the_same_value() -> None:
    assert findings(CSV.replace("@OPTS@", ONE_LINE), CSV.replace("@OPTS@", WRAPPED)) == []


def test_options_filtered_by_a_known_list_of_names_are_compatible() -> None:
    old = CSV.replace("@OPTS@\n", "")
    new = CSV.replace("@OPTS@", "writer = writer.options(**{k: v for k, v in args.items() "
                                 "if k in ('sep', 'header')})")
    assert findings(old, new) == [("SK09", "compatible")]


def test_an_options_dict_that_may_hold_any_key_is_a_question() -> None:
    # `args` may hold `path` or `checkpointLocation`: where the sink writes may change.
    old = CSV.replace("@OPTS@\n", "")
    new = CSV.replace("@OPTS@", "writer = writer.options(**{k: v for k, v in args.items() "
                                 "if v})")
    assert findings(old, new) == [("UN02", "review")]


def test_a_known_table_that_names_the_path_is_a_question() -> None:
    old = CSV.replace("@OPTS@\n", "")
    table = CSV.replace('"gcs.output.quote": "quote"', '"gcs.output.dir": "path"')
    assert findings(old, table.replace("@OPTS@", ONE_LINE)) == [("UN02", "review")]


INGEST = """
import sys
from pyspark.sql import functions as F
cfg = {"source_format": sys.argv[1], "path": sys.argv[2]}
READ
df = df.withColumn("_ingested_at", F.current_timestamp()).filter("value IS NOT NULL")
df.writeStream.option("checkpointLocation", "/chk/bronze").toTable("bronze.orders")
"""
AUTO_LOADER = ('df = spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")'
               '.load(cfg["path"])')


def test_a_new_opt_in_source_beside_the_old_one_is_a_note() -> None:
    # filogonzalez e1c11989: `if cfg["source_format"] == "delta":` before the old Auto Loader.
    new = INGEST.replace("READ", 'if cfg["source_format"] == "delta":\n'
                         '    df = spark.readStream.table(cfg["path"])\nelse:\n    '
                         + AUTO_LOADER)
    assert findings(INGEST.replace("READ", AUTO_LOADER), new) == [("UN09", "compatible")]


def test_a_new_condition_whose_every_branch_reads_another_source_still_fires() -> None:
    new = INGEST.replace("READ", 'if cfg["source_format"] == "delta":\n'
                         '    df = spark.readStream.table(cfg["path"])\nelse:\n    '
                         'df = spark.readStream.format("kafka").option("subscribe", "o").load()')
    assert ("SO03", "incompatible") in findings(INGEST.replace("READ", AUTO_LOADER), new)


def test_a_new_source_as_the_only_path_still_fires() -> None:
    new = INGEST.replace("READ", 'df = spark.readStream.table(cfg["path"])')
    assert ("SO03", "incompatible") in findings(INGEST.replace("READ", AUTO_LOADER), new)


def test_a_new_try_whose_fallback_is_the_old_read_is_still_judged() -> None:
    # waleadekoya ecab7be9: the try block runs unless it fails, so no deployment keeps to the
    # handler that reads as before: the branch read (the try block) is the query's change.
    new = INGEST.replace("READ", "try:\n    df = spark.readStream.table(cfg['path'])\n"
                         "except Exception:\n    " + AUTO_LOADER)
    got = findings(INGEST.replace("READ", AUTO_LOADER), new)
    assert ("SO03", "incompatible") in got and ("UN09", "compatible") not in got


FIXED_COLUMNS = """
from pyspark.sql.functions import col, lit
events = spark.readStream.format("kafka").option("subscribe", "events").load()
events.select(col("page").cast("string").alias("page"), col("user"), col("ts")) \\
    .writeStream.format("delta").option("checkpointLocation", "/chk/events").start("/out")
"""
# The same columns, each read if the input has it, else a typed null under its name.
FILLED_COLUMNS = """
from pyspark.sql.functions import col, lit
events = spark.readStream.format("kafka").option("subscribe", "events").load()
wanted = []
for name in ["page"]:
    if name in events.columns:
        wanted.append(col(name).cast("string"))
    else:
        wanted.append(lit(None).cast("string").alias(name))
wanted += [col("user"), col("ts")]
events.select(*wanted) \\
    .writeStream.format("delta").option("checkpointLocation", "/chk/events").start("/out")
"""


def test_a_column_or_a_typed_null_of_its_name_is_that_column() -> None:
    assert findings(FIXED_COLUMNS, FILLED_COLUMNS) == [("PR02", "compatible")]


def test_a_typed_null_of_another_type_still_fires() -> None:
    other_type = FILLED_COLUMNS.replace('lit(None).cast("string")', 'lit(None).cast("int")')
    assert findings(FIXED_COLUMNS, other_type) == [("PR03", "review")]


def test_a_typed_null_under_another_name_still_fires() -> None:
    renamed = FILLED_COLUMNS.replace(".alias(name)", '.alias("page_name")')
    assert findings(FIXED_COLUMNS, renamed) == [("PR03", "review")]


def test_both_branches_retyped_still_fire() -> None:
    retyped = FILLED_COLUMNS.replace('cast("string")', 'cast("int")')
    assert findings(FIXED_COLUMNS, retyped) == [("PR03", "review")]
