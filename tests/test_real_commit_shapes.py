"""Shapes found on real commits of the history corpus (tests/history) that must read as what
they are: pyspark.ml stages scoring a stream (extract/pyspark_api/ml.py: a Transformer's
`transform(df)` is a stateless projection), a batch action on a stream (no query), a fork's
note kept through pickling, NOT NULL in a file source's schema (no change)."""

from __future__ import annotations

import pickle

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.model import Fork, Projection

SCORING = """
import os
from pyspark.sql import SparkSession
from pyspark.ml import PipelineModel
from pyspark.ml.feature import VectorAssembler

class Scorer:
    def __init__(self):
        self.model = None

    def load(self):
        if os.path.exists(os.environ["MODEL"]):
            self.model = PipelineModel.load(os.environ["MODEL"])

    def run(self):
        spark = SparkSession.builder.getOrCreate()
        self.load()
        df = spark.readStream.format("kafka").option("subscribe", "reviews").load()
        df = VectorAssembler(inputCols=["a", "b"], outputCol="features").transform(df)
        if self.model:
            df = self.model.transform(df)
        (df.select("value", "prediction").writeStream.format("console")
           .option("checkpointLocation", "/chk/score").start())

Scorer().run()
"""


def codes(old: str, new: str) -> list[str]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return sorted(f.code for f in report.findings)


def test_a_stream_scored_by_a_model_is_one_query_read_whole() -> None:
    job = extract_text(SCORING, "job.py")
    (query,) = job.queries
    assert not job.unseen
    assert query.sink.checkpoint == "/chk/score"
    methods = [op.method for op in query.operators if isinstance(op, Projection)]
    assert methods[:2] == ["VectorAssembler.transform", "PipelineModel.transform"]
    assert not query.stateful


def test_an_edit_near_the_model_is_no_question() -> None:
    edited = SCORING.replace('outputCol="features"', 'outputCol="features", handleInvalid="skip"')
    assert codes(SCORING, edited) == []


def test_a_change_after_the_model_is_still_judged() -> None:
    grouped = SCORING.replace('df.select("value", "prediction")',
                              'df.groupBy("prediction").count()')
    assert "QY03" not in codes(SCORING, grouped)
    assert codes(SCORING, grouped)  # an aggregation added after scoring: a finding


def test_a_model_method_streamlint_does_not_know_stays_unknown() -> None:
    # Not a transform: the branch that calls it is noted (never read as the plain stream).
    job = SCORING.replace("df = self.model.transform(df)", "df = self.model.explainParams(df)")
    (query,) = extract_text(job, "job.py").queries
    assert query.unresolved
    assert "PipelineModel.transform" not in [getattr(op, "method", "") for op in query.operators]


def test_a_fork_note_keeps_its_branch_through_pickling() -> None:
    note = Fork("the DataFrame depends on ...", "mode == 'a'", "first", ((), (), None, (), "#0"))
    again = pickle.loads(pickle.dumps(note))
    assert again == note and again.condition == "mode == 'a'" and again.other == note.other


BATCH_ACTION = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
df = spark.readStream.format("kafka").option("subscribe", "positions").load()
df.select("value").show()
"""


def test_a_batch_action_on_a_stream_starts_no_query_and_is_no_unread_code() -> None:
    # Spark refuses it (tests/test_spark_stream_facts.py): nothing starts, nothing escapes.
    job = extract_text(BATCH_ACTION, "job.py")
    assert job.queries == () and job.unseen == ()


def test_not_null_in_a_file_sources_schema_is_no_change() -> None:
    job = """
df = spark.readStream.schema("id STRING, n INT").csv("/landing/events")
df.writeStream.format("delta").option("checkpointLocation", "/chk/e").start("/t/e")
"""
    new = job.replace('"id STRING, n INT"', '"id STRING NOT NULL, n INT NOT NULL"')
    assert codes(job, new) == []
    kafka = job.replace('.csv("/landing/events")', '.format("json").load("/landing/events")')
    assert codes(kafka, kafka.replace('"id STRING, n INT"', '"id STRING, n BIGINT"')) != []


GLUE = """
import sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "STREAM_ARN", "BUCKET"])
glue_context = GlueContext(SparkContext.getOrCreate())
raw = glue_context.create_data_frame.from_options(
    connection_type="kinesis",
    connection_options={"streamARN": args["STREAM_ARN"], "startingPosition": "TRIM_HORIZON",
                        "classification": "json", "inferSchema": "true"})
(raw.selectExpr("CAST(data AS STRING) AS body").writeStream.format("parquet")
    .option("path", f"s3://{args['BUCKET']}/bronze/clicks/")
    .option("checkpointLocation", f"s3://{args['BUCKET']}/checkpoints/clicks/").start())
"""


def test_a_glue_streaming_job_reads_its_stream_and_its_arguments() -> None:
    (query,) = extract_text(GLUE, "glue_job.py").queries
    (source,) = query.sources
    assert source.format == "kinesis" and source.streaming
    assert "Glue job argument --BUCKET" in str(query.sink.checkpoint)
    # The arguments renamed and re-listed (a history pair): the same values.
    renamed = GLUE.replace("args = getResolvedOptions(sys.argv, [\"JOB_NAME\", \"STREAM_ARN\", "
                           "\"BUCKET\"])",
                           "job_args = getResolvedOptions(sys.argv, [\"JOB_NAME\", \"BUCKET\", "
                           "\"STREAM_ARN\", \"REGION\"])").replace("args[", "job_args[")
    assert codes(GLUE, renamed) == []
    moved = GLUE.replace("/checkpoints/clicks/", "/checkpoints/clicks_v2/")
    assert "QY01" in codes(GLUE, moved)


WRAPPED = """
path = dbutils.notebook.entry_point.getDbutils().notebook().getContext().notebookPath().get()
df = spark.readStream.table(f"{path.split('/')[2]}.orders")
df.writeStream.option("checkpointLocation", "/chk/o").toTable("silver.orders")
"""


def test_a_run_time_value_wrapped_in_brackets_or_commented_is_the_same_value() -> None:
    # An0N-ops 254b5187: a long line wrapped in brackets by a formatter.
    wrapped = WRAPPED.replace(
        "path = dbutils.notebook.entry_point.getDbutils().notebook().getContext()"
        ".notebookPath().get()",
        "path = (\n    dbutils.notebook.entry_point.getDbutils().notebook().getContext()"
        ".notebookPath().get()  # the notebook's own path\n)")
    assert codes(WRAPPED, wrapped) == []
    moved = WRAPPED.replace("split('/')[2]", "split('/')[3]")
    assert codes(WRAPPED, moved) != []


# A pipeline built from a manifest: one dataset per entry, each registered by applying the
# decorator as a call (`dlt.table(name=...)(fn)`), expectations applied over it, and a helper
# whose first branch returns early for the entries that stay materialized views.
MANIFEST_PIPELINE = """
import json
import dlt
from pyspark.sql import SparkSession

SPECS = json.loads(open("manifest.json").read())

def with_expectations(func, spec):
    for item in spec["expectations"]:
        func = dlt.expect_or_fail(item["name"], item["constraint"])(func)
    return func

def register(spec):
    name = f"gold.{spec['name']}"
    if spec["kind"] == "aggregate":
        def _mv():
            return SparkSession.getActiveSession().read.table(spec["source"])
        return with_expectations(dlt.table(name=name)(_mv), spec)

    def _prep():
        return SparkSession.getActiveSession().{READ}.table(spec["source"])
    with_expectations(dlt.table(name=f"gold.prep_{spec['name']}")(_prep), spec)
    dlt.create_streaming_table(name=name)
    dlt.apply_changes(target=name, source=f"gold.prep_{spec['name']}", keys=["id"],
                      sequence_by="ts")

for spec in SPECS:
    register(spec)
"""


def test_a_dataset_registered_by_a_call_is_read_past_an_early_return() -> None:
    job = extract_text(MANIFEST_PIPELINE.replace("{READ}", "readStream"), "job.py")
    assert not job.unseen
    targets = sorted(str(q.sink.target) for q in job.queries)
    assert any("prep_" in t for t in targets)  # the prep table streams: a flow
    assert len(job.batch_datasets) == 1  # the aggregate entries' materialized view


def test_a_prep_table_from_batch_to_streaming_by_a_call_is_incompatible() -> None:
    old = MANIFEST_PIPELINE.replace("{READ}", "read")
    new = MANIFEST_PIPELINE.replace("{READ}", "readStream")
    assert "PL09" in codes(old, new)
    assert codes(new, new) == []


# A one-time flow seeding an existing streaming table from a batch query built at run time
# (Databricks, `append_flow(once=True)`: the return value "must be a batch DataFrame", and
# "the flow is run one time by default").
BRONZE = """
import dlt
catalog = spark.conf.get("catalog")

@dlt.table(name="trades")
def trades():
    return spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv").load("/in")
"""
BACKFILL = """
@dlt.append_flow(target="trades", once=True, name="trades_backfill")
def trades_backfill():
    return spark.sql(f"SELECT * FROM {catalog}.staging.trades")
"""


def test_a_new_one_time_backfill_flow_is_a_new_flow() -> None:
    assert codes(BRONZE, BRONZE + BACKFILL) == ["PL03"]  # compatible: runs once
    job = extract_text(BRONZE + BACKFILL, "job.py")
    assert not job.unseen


def test_a_renamed_one_time_backfill_flow_runs_again() -> None:
    renamed = BACKFILL.replace('name="trades_backfill"', 'name="trades_seed"')
    assert "PL01" in codes(BRONZE + BACKFILL, BRONZE + renamed)


# A windowed count sorted for the console, whose sort was spelled `.orderby` (no DataFrame
# method of any pyspark: the old query raised before it started), fixed along with a removed
# queryName.
SORTED_COUNTS = """
from pyspark.sql import SparkSession
from pyspark.sql.functions import *

spark = SparkSession.builder.appName("clicks").getOrCreate()
raw = spark.readStream.format("kafka").option("subscribe", "clicks").load()
events = raw.select(col("timestamp"), raw["value"].cast("string"))
per_window = events.groupBy(window(col("timestamp"), "5 minutes"))\\
    .count()\\
    .{sort}('window')

per_window.writeStream\\
    .trigger(processingTime="30 seconds")\\
    {name}.format("console")\\
    .option("checkpointLocation", "/chk/clicks")\\
    .outputMode("complete")\\
    .start()\\
    .awaitTermination()
"""


def sorted_counts(sort: str, name: str = "", head: str = "") -> str:
    return head + SORTED_COUNTS.format(sort=sort, name=name)


def test_an_old_version_that_could_not_start_makes_its_fix_compatible() -> None:
    old = sorted_counts("orderby", '.queryName("clicks_per_window")\\\n    ')
    new = sorted_counts("orderBy")
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    assert report.verdict == "compatible"
    (finding,) = report.findings
    assert finding.code == "QY25"
    assert "the old version fails at line 10" in finding.message
    assert "`orderby`" in finding.message and "AttributeError" in finding.message


def test_a_new_version_that_cannot_start_is_a_finding() -> None:
    report = diff_jobs(extract_text(sorted_counts("orderBy"), "old.py"),
                       extract_text(sorted_counts("orderby"), "new.py"))
    assert report.verdict == "review"
    assert [f.code for f in report.findings] == ["QY26"]
    assert "the new version fails at line 10" in report.findings[0].message


def test_both_versions_failing_the_same_way_is_said_once_as_already_there() -> None:
    old = sorted_counts("orderby", '.queryName("clicks_per_window")\\\n    ')
    assert codes(old, sorted_counts("orderby")) == ["QY18"]


def test_a_real_method_streamlint_does_not_model_stays_unresolved() -> None:
    # `DataFrame.offset` exists (pyspark 3.4+): the call does not raise, streamlint just does
    # not read it.
    assert "UN01" in codes(sorted_counts("orderBy"), sorted_counts("offset"))
    assert "QY26" not in codes(sorted_counts("orderBy"), sorted_counts("offset"))


def test_a_failure_that_may_not_happen_is_not_certain() -> None:
    fixed = sorted_counts("orderBy")
    # A package that may add methods to DataFrame, and a run-time branch around the call.
    patched = sorted_counts("orderby", head="import sparkext\n")
    branched = sorted_counts("orderby").replace(
        "per_window = events", "if len(sys.argv) > 1:\n    per_window = events").replace(
        "    .count()", "        .count()").replace("    .orderby", "        .orderby")
    branched = "import sys\n" + branched.replace(
        "\nper_window.writeStream", "else:\n    per_window = events\nper_window.writeStream")
    for old in (patched, branched):
        found = codes(old, fixed if old is branched else "import sparkext\n" + fixed)
        assert "QY25" not in found and "UN01" in found, found


# An Auto Loader job moved from a widget-built cloud path to a Unity Catalog volume whose parts
# come from widgets with defaults: no widget value gives `abfss://...` again.
AUTO_LOADER_ABFSS = """
source_dir = dbutils.widgets.get("source_dir")
raw = (spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv")
       .load(f"abfss://landing@lake.dfs.core.windows.net/{source_dir.strip('/')}/"))
raw.writeStream.option("checkpointLocation", "/chk/bronze_sales").toTable("bronze.sales")
"""

AUTO_LOADER_VOLUME = """
dbutils.widgets.text("catalog", "dev")
dbutils.widgets.text("volume", "landing")
catalog = dbutils.widgets.get("catalog")
volume = dbutils.widgets.get("volume")
raw = (spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv")
       .load(f"/Volumes/{catalog}/bronze/{volume}/"))
raw.writeStream.option("checkpointLocation", "/chk/bronze_sales").toTable("bronze.sales")
"""


def test_a_source_path_moved_to_widgets_that_cannot_give_the_old_one_is_judged() -> None:
    report = diff_jobs(extract_text(AUTO_LOADER_ABFSS, "old.py"),
                       extract_text(AUTO_LOADER_VOLUME, "new.py"))
    assert report.verdict == "incompatible"
    assert "SO04" in [f.code for f in report.findings]


def test_a_source_path_moved_to_widgets_that_can_give_the_old_one_is_asked_about() -> None:
    """The must-still-ask counterpart: `/Volumes/{catalog}/bronze/{volume}/` is the old
    literal path when the deployment sets the widgets to its parts."""
    old = AUTO_LOADER_VOLUME.replace('f"/Volumes/{catalog}/bronze/{volume}/"',
                                     '"/Volumes/prod/bronze/landing/"')
    report = diff_jobs(extract_text(old, "old.py"), extract_text(AUTO_LOADER_VOLUME, "new.py"))
    assert report.verdict == "review"
    assert "SO04" not in [f.code for f in report.findings]


# A Glue job's parquet sink turned into a Delta sink at the same S3 prefix and checkpoint.
PARQUET_SINK = """
import sys
from awsglue.utils import getResolvedOptions
args = getResolvedOptions(sys.argv, ["BUCKET"])
out = f"s3://{args['BUCKET']}/bronze/clicks/"
clicks = spark.readStream.format("kafka").option("subscribe", "clicks").load()
(clicks.writeStream.format("parquet").option("path", out)
 .option("checkpointLocation", f"s3://{args['BUCKET']}/checkpoints/clicks/").start())
"""


def test_a_file_sink_directory_turned_into_a_delta_table_is_incompatible() -> None:
    new = PARQUET_SINK.replace('format("parquet")', 'format("delta")')
    assert codes(PARQUET_SINK, new) == ["SK14"]


def test_a_file_sink_replaced_by_delta_elsewhere_stays_a_review() -> None:
    new = PARQUET_SINK.replace('format("parquet")', 'format("delta")').replace(
        '/bronze/clicks/"', '/bronze/clicks_delta/"')
    found = codes(PARQUET_SINK, new)
    assert "SK14" not in found and "SK04" in found


# A CDC job parses Kafka's value with a declared schema, flattens it, and appends each batch to
# a Delta table from foreachBatch; a commit retypes a field of the schema.
PARSED_TO_DELTA = """
from pyspark.sql.functions import col, from_json
from pyspark.sql.types import StructType, StructField, StringType, DoubleType

tx_schema = StructType([
    StructField("tx_id", StringType(), True),
    StructField("amount", StringType(), True),
])
raw = spark.readStream.format("kafka").option("subscribe", "payments").load()
rows = raw.select(from_json(col("value").cast("string"), tx_schema).alias("tx")).select("tx.*")

def append_bronze(batch_df, batch_id):
    batch_df.write.format("delta").mode("append").save("/lake/bronze/payments")

rows.writeStream.foreachBatch(append_bronze).option("checkpointLocation", "/chk/pay").start()
"""


def test_a_parsed_field_retyped_into_a_delta_table_written_by_foreach_batch_is_a_review() -> None:
    new = PARSED_TO_DELTA.replace('StructField("amount", StringType()',
                                  'StructField("amount", DoubleType()')
    report = diff_jobs(extract_text(PARSED_TO_DELTA, "old.py"), extract_text(new, "new.py"))
    assert report.verdict == "review"
    (finding,) = [f for f in report.findings if f.code == "PR03"]
    assert "amount: string" in finding.message and "amount: double" in finding.message


def test_a_parsed_field_retyped_into_the_console_is_compatible() -> None:
    """The counterpart: a sink that checks no schema takes the new type (PR06, a note)."""
    old = PARSED_TO_DELTA.replace(
        'batch_df.write.format("delta").mode("append").save("/lake/bronze/payments")',
        "batch_df.show()")
    new = old.replace('StructField("amount", StringType()', 'StructField("amount", DoubleType()')
    assert codes(old, new) == ["PR06"]


def test_a_cast_to_the_type_the_schema_already_gives_is_no_change_of_type() -> None:
    new = PARSED_TO_DELTA.replace(
        '.select("tx.*")', '.select("tx.*").withColumn("tx_id", col("tx_id").cast("string"))')
    report = diff_jobs(extract_text(PARSED_TO_DELTA, "old.py"), extract_text(new, "new.py"))
    assert report.verdict == "compatible", [f.message for f in report.findings]


# A script holding one function per aggregate, all on one checkpoint, and calling one of them
# at the bottom (the others kept for later, never called in the file). A commit that calls
# another one resumes the checkpoint with another topic: Spark's guide does not allow a change
# of subscribed topics.
PER_TOPIC = """
from pyspark.sql import SparkSession
from pyspark.sql.functions import window

CHECKPOINT = "vendor/chk"
spark = SparkSession.builder.getOrCreate()

def counts(topic, size="2 minutes"):
    df = spark.readStream.format("kafka").option("subscribe", topic).load()
    df = df.withWatermark("timestamp", "1 hour").groupBy(window("timestamp", size), "key").count()
    return (df.selectExpr("to_json(struct(*)) AS value").writeStream.format("kafka")
              .option("topic", topic + "_out").option("checkpointLocation", CHECKPOINT)
              .outputMode("update").start())

def click_counts(size="2 minutes"):
    return counts("click", size)

def basket_counts(size="2 minutes"):
    return counts("basket", size)

click_counts().awaitTermination()
# basket_counts().awaitTermination()
"""


def test_calling_another_function_on_one_shared_checkpoint_changes_the_topic() -> None:
    switched = (PER_TOPIC.replace("click_counts().awaitTermination()",
                                  "# click_counts().awaitTermination()")
                .replace("# basket_counts().awaitTermination()",
                         "basket_counts().awaitTermination()"))
    report = diff_jobs(extract_text(PER_TOPIC, "old.py"), extract_text(switched, "new.py"))
    assert report.verdict == "incompatible"
    assert any(f.code == "SO04" and "'click' to 'basket'" in f.message for f in report.findings)


def test_the_query_a_run_starts_is_known_from_the_functions_never_called() -> None:
    queries = extract_text(PER_TOPIC, "job.py").queries
    assert {q.sink.entry for q in queries} == {"", "basket_counts"}
    edited = PER_TOPIC.replace("click_counts().awaitTermination()",
                               'print("starting")\nclick_counts().awaitTermination()', 1)
    assert diff_jobs(extract_text(PER_TOPIC, "old.py"),
                     extract_text(edited, "new.py")).verdict == "compatible"
