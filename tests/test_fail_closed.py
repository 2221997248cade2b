"""Never fail open: every streaming query is seen, or what was not seen is a finding.

The sinks here are the ones real jobs use (Databricks' `DataStreamWriter.table`, `display`);
the unseen cases are the shapes that used to read as "no streaming query found, compatible".
"""

from __future__ import annotations

import json

from streamlint.cli import main
from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.model import Unseen

KAFKA = 'spark.readStream.format("kafka").option("subscribe", "orders").load()'


def codes(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return [(f.code, f.verdict) for f in report.findings]


# -- sinks --------------------------------------------------------------------------------

TABLE_JOB = f"""
df = {KAFKA}
(df.groupBy("customer_id").count()
   .writeStream.outputMode("complete")
   .option("checkpointLocation", "/chk/orders")
   .table("gold.orders_per_customer"))
"""


def test_databricks_table_sink_is_a_query() -> None:
    job = extract_text(TABLE_JOB, "job.py")
    assert len(job.queries) == 1
    sink = job.queries[0].sink
    assert sink.target == "gold.orders_per_customer"
    assert sink.checkpoint == "/chk/orders"
    assert job.unseen == ()


def test_table_and_to_table_write_the_same_way() -> None:
    same = TABLE_JOB.replace('.table("gold', '.toTable("gold')
    assert codes(TABLE_JOB, same) == []


def test_grouping_key_added_before_a_table_sink_is_incompatible() -> None:
    new = TABLE_JOB.replace('groupBy("customer_id")', 'groupBy("customer_id", "region")')
    assert ("AG01", "incompatible") in codes(TABLE_JOB, new)


def test_display_with_a_checkpoint_is_a_query() -> None:
    old = f'df = {KAFKA}\ndisplay(df.groupBy("k").count(), checkpointLocation="/chk/d")\n'
    job = extract_text(old, "nb.py")
    assert [q.sink.format for q in job.queries] == ["display"]
    assert job.queries[0].sink.checkpoint == "/chk/d"
    new = old.replace('groupBy("k")', 'groupBy("k", "j")')
    assert ("AG01", "incompatible") in codes(old, new)


def test_display_without_a_checkpoint_starts_fresh_every_run() -> None:
    old = f'df = {KAFKA}\ndisplay(df.groupBy("k").count())\n'
    job = extract_text(old, "nb.py")
    assert job.queries == () and job.unseen == ()
    assert codes(old, old.replace('groupBy("k")', 'groupBy("k", "j")')) == []


def test_a_user_defined_display_is_not_databricks_display() -> None:
    text = (f'def display(frame, **kw):\n    pass\n\ndf = {KAFKA}\n'
            'display(df, checkpointLocation="/c")\n')
    assert extract_text(text, "job.py").queries == ()


def test_a_function_called_twice_alike_starts_one_query() -> None:
    text = """
def run(topic, checkpoint):
    df = spark.readStream.format("kafka").option("subscribe", topic).load()
    df.writeStream.option("checkpointLocation", checkpoint).toTable("t_" + topic)

run("a", "/chk/a")
run("a", "/chk/a")
run("b", "/chk/b")
"""
    job = extract_text(text, "job.py")
    assert sorted(q.sink.checkpoint for q in job.queries) == ["/chk/a", "/chk/b"]


# -- what is not seen -----------------------------------------------------------------------

HANDED_OVER = f"""
from company_lib.sinks import start_sink

df = {KAFKA}
start_sink(df.groupBy("customer_id").count(), "/chk/orders")
"""


def test_a_stream_handed_to_code_outside_the_repository_is_unseen() -> None:
    job = extract_text(HANDED_OVER, "job.py")
    assert job.queries == ()
    [item] = job.unseen
    assert isinstance(item, Unseen) and item.about == "no-sink"
    assert item.loc.line == 4  # the readStream
    assert "start_sink" in item.what


def test_a_changed_query_streamlint_cannot_see_is_never_compatible() -> None:
    new = HANDED_OVER.replace('groupBy("customer_id")', 'groupBy("customer_id", "region")')
    assert codes(HANDED_OVER, new) == [("UN03", "review")]


def test_the_same_unseen_code_in_both_versions_is_no_finding() -> None:
    assert codes(HANDED_OVER, HANDED_OVER) == []


def test_a_stream_read_and_never_used_starts_no_query() -> None:
    text = f"unused = {KAFKA}\n"
    assert extract_text(text, "job.py").unseen == ()


def test_a_writer_handed_to_unfollowed_code_is_unseen() -> None:
    text = (f'df = {KAFKA}\nwriter = df.writeStream.option("checkpointLocation", "/c")\n'
            "run_later(writer)\n")
    job = extract_text(text, "job.py")
    assert job.queries == ()
    assert [u.about for u in job.unseen] == ["no-sink", "no-sink"]  # the source, the writer
    assert sorted(u.loc.line for u in job.unseen) == [1, 2]


def test_a_writer_never_started_nor_handed_over_is_a_note() -> None:
    # It starts no query: a note (UN07) when it changes, never a question.
    text = f'df = {KAFKA}\nwriter = df.writeStream.option("checkpointLocation", "/c")\n'
    job = extract_text(text, "job.py")
    assert job.queries == ()
    assert [u.about for u in job.unseen] == ["never-started"]
    new = text.replace('"/c"', '"/d"')
    assert codes(text, new) == [("UN07", "compatible")]


LAB = f'''import time


def wait_until_ready(query, batches=1):
    while len(query.recentProgress) < batches:
        time.sleep(5)


df = {KAFKA}
silver_query = (
    df.writeStream  # TODO: write the silver stream in append mode
)
print(silver_query.id, silver_query.status)
wait_until_ready(silver_query, 1)
silver_query.awaitTermination()
'''


def test_a_writer_used_only_as_the_query_it_would_start_is_a_note() -> None:
    """A lab's unfinished writer whose name is used as a StreamingQuery (`.id`, `.status`,
    `awaitTermination()`, a helper reading `.recentProgress`): no DataStreamWriter has those,
    each use raises, none starts it."""
    assert [u.about for u in extract_text(LAB, "job.py").unseen] == ["never-started"]
    new = LAB.replace("df.writeStream", 'df.selectExpr("value").writeStream')
    assert set(codes(LAB, new)) == {("UN07", "compatible")}


def test_a_writer_some_code_may_still_start_stays_unseen() -> None:
    for use in ("silver_query.start()",  # the file's own code starts it (a query)
                "run_later(silver_query)",  # handed to code streamlint cannot follow
                "silver_query = silver_query.option('checkpointLocation', '/c')",  # rebound
                "silver_query._jwrite.start()",  # the JVM writer behind it
                "queries = [silver_query]"):
        text = LAB + use + "\n"
        assert "never-started" not in [u.about for u in extract_text(text, "job.py").unseen], use
    # A helper of the file that starts what it is handed.
    text = LAB.replace("while len(query.recentProgress) < batches:",
                       "query.start()\n    while len(query.recentProgress) < batches:")
    assert "never-started" not in [u.about for u in extract_text(text, "job.py").unseen]


def test_streaming_code_in_a_lambda_handed_to_a_framework_is_unseen() -> None:
    text = """
from company_lib import retry

retry(lambda: spark.readStream.format("rate").load()
      .writeStream.option("checkpointLocation", "/chk/r").start("/out/r"))
"""
    job = extract_text(text, "job.py")
    assert job.queries == ()
    assert {u.about for u in job.unseen} == {"not-run"}
    assert {u.loc.line for u in job.unseen} == {4, 5}


def test_an_unseen_query_removed_is_reported_on_the_old_side() -> None:
    plain = f'df = {KAFKA}\ndf.writeStream.option("checkpointLocation", "/c").toTable("t")\n'
    found = diff_jobs(extract_text(HANDED_OVER, "old.py"), extract_text(plain, "new.py"))
    unseen = [f for f in found.findings if f.code == "UN03"]
    assert len(unseen) == 1 and unseen[0].old is not None and unseen[0].new is None


def test_cli_reports_the_unseen_line_and_fails_with_strict(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(HANDED_OVER)
    new.write_text(HANDED_OVER.replace('"/chk/orders"', '"/chk/orders_v2"'))
    assert main(["diff", str(old), str(new), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "review"
    [finding] = report["findings"]
    assert finding["code"] == "UN03" and finding["new"]["line"] == 4
    assert main(["diff", str(old), str(new), "--strict"]) == 1


def test_text_report_never_says_no_query_when_code_was_not_read(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(HANDED_OVER)
    new.write_text(HANDED_OVER.replace('"/chk/orders"', '"/chk/orders_v2"'))
    main(["diff", str(old), str(new)])
    out = capsys.readouterr().out
    assert "no streaming query found" not in out
    assert "no streaming query streamlint could read" in out
    main(["diff", str(old), str(old)])
    assert "are the same code: nothing changed" in capsys.readouterr().out


def test_a_writer_configured_by_statements_is_the_writer_started() -> None:
    text = f"""
df = {KAFKA}
stream = df.writeStream.format("delta").option("checkpointLocation", "/chk/a")
stream.foreachBatch(upsert)
stream.option("checkpointLocation", "/chk/b")
query = stream.start()
"""
    [query] = extract_text(text, "job.py").queries
    assert query.sink.format == "foreachBatch"
    assert query.sink.checkpoint == "/chk/b"


def test_notebook_spark_sql_over_a_streaming_view_shown_with_a_checkpoint() -> None:
    # A Databricks notebook's predefined `spark` (never assigned in the file).
    text = '''
spark.readStream.table("events").createOrReplaceTempView("events_stream")
df = spark.sql("SELECT platform, count(*) c FROM events_stream GROUP BY platform")
display(df, checkpointLocation="/chk/monitor")
'''
    [query] = extract_text(text, "nb.py").queries
    assert query.sink.checkpoint == "/chk/monitor"
    assert [s.identity for s in query.sources] == [(("table", "events"),)]


def test_a_class_built_elsewhere_gets_unknown_arguments_not_its_defaults() -> None:
    # atc-dataplatform's StreamLoader: `trigger_type=None` by default, and a method that
    # raises for None; the real caller (another module) passes a trigger type.
    text = """
class StreamLoader:
    def __init__(self, *, trigger_type: str = None, checkpoint_path: str = None):
        self._trigger_type = trigger_type
        self._checkpoint_path = checkpoint_path

    def save(self, df):
        writer = df.writeStream.option("checkpointLocation", self._checkpoint_path)
        writer = self._add_trigger(writer)
        writer.foreachBatch(self._upsert)
        writer.start()

    def _upsert(self, df, batch_id):
        pass

    def _add_trigger(self, writer):
        if self._trigger_type == "availablenow":
            return writer.trigger(availableNow=True)
        raise ValueError("Unknown trigger type.")
"""
    job = extract_text(text, "loader.py")
    assert len(job.queries) == 1 and job.unseen == ()
    assert job.queries[0].sink.format == "foreachBatch"


def test_the_same_outside_writer_handed_the_same_stream_is_no_finding() -> None:
    # Only a comment differs: the stream and every argument handed over are the same.
    assert codes(HANDED_OVER, HANDED_OVER + "# deployed on Mondays\n") == []


def test_an_argument_handed_with_the_stream_that_changes_is_a_finding() -> None:
    old = HANDED_OVER.replace('"/chk/orders"', 'os.environ["ORDERS_CHK"]')
    new = HANDED_OVER.replace('"/chk/orders"', 'os.environ["ORDERS_CHK_V2"]')
    assert codes("import os\n" + old, "import os\n" + new) == [("UN03", "review")]
    moved = HANDED_OVER.replace('"/chk/orders"', '"/chk/orders_v2"')
    assert codes(HANDED_OVER, moved) == [("UN03", "review")]


def test_a_function_handed_with_the_stream_that_changes_is_a_finding() -> None:
    old = f"""
from company_lib.sinks import start_sink

def upsert(batch, batch_id):
    batch.write.mode("append").saveAsTable("t")

start_sink({KAFKA}, upsert)
"""
    new = old.replace('mode("append")', 'mode("overwrite")')
    assert codes(old, new) == [("UN03", "review")]


def test_a_query_started_in_both_branches_of_a_runtime_condition_is_one_query() -> None:
    # modern-data-warehouse-dataops' sink helper: partitionBy or not, chosen at run time.
    text = f"""
def save(data, table, checkpoint, partition_keys):
    if not partition_keys:
        data.writeStream.option("checkpointLocation", checkpoint).toTable(table)
    else:
        data.writeStream.option("checkpointLocation", checkpoint).partitionBy(
            partition_keys).toTable(table)

save({KAFKA}, "t", "/chk/t", read_keys())
"""
    [query] = extract_text(text, "job.py").queries
    assert query.sink.target == "t" and query.sink.partition_by == ()
    assert any("run-time condition `not partition_keys`" in note for note, _ in query.unresolved)
    # A change in the branch not read is still a change (its shape is in the note).
    changed = text.replace("partition_keys).toTable(table)",
                           "partition_keys).toTable(table + '_p')")
    found = codes(text, changed)
    assert found and set(found) == {("UN01", "review")}  # the note as it was, and as it is


def test_a_key_set_in_options_streamlint_cannot_see_is_still_a_change() -> None:
    # atc-dataplatform's StreamLoader puts the checkpoint into options it was given.
    text = """
class Loader:
    def __init__(self, options, checkpoint_path):
        self._options = options
        self._checkpoint_path = checkpoint_path

    def save(self, df):
        self._options["checkpointLocation"] = self._checkpoint_path
        df.writeStream.options(**self._options).toTable("t")
"""
    moved = text.replace('= self._checkpoint_path\n', '= self._checkpoint_path + "/loader"\n')
    assert moved != text
    assert ("UN02", "review") in codes(text, moved)


WIDGET_JOB = """
dbutils.widgets.text("chk", "abfss://data@lake.dfs.core.windows.net/checkpoint", "Checkpoint")
chk = dbutils.widgets.get("chk")
df = spark.readStream.format("cloudFiles").option("cloudFiles.format", "json").load("/in")
df.writeStream.option("checkpointLocation", chk).start("/out")
"""


def test_a_widget_reads_as_its_default_like_an_environment_lookup() -> None:
    [query] = extract_text(WIDGET_JOB, "nb.py").queries
    assert query.sink.checkpoint == "abfss://data@lake.dfs.core.windows.net/checkpoint"
    moved = WIDGET_JOB.replace('/checkpoint", "Checkpoint"', '/checkpoint-v2", "Checkpoint"')
    # Only the default changed: the deployment decides (issue 27), so it is asked about,
    # naming the widget and both defaults, never judged incompatible on the default alone.
    assert codes(WIDGET_JOB, moved) == [("UN02", "review"), ("UN04", "review")]


def test_a_widget_without_a_default_in_sight_stays_unknown() -> None:
    text = WIDGET_JOB.replace('dbutils.widgets.text("chk", ', 'dbutils.widgets.text("other", ')
    [query] = extract_text(text, "nb.py").queries
    assert not isinstance(query.sink.checkpoint, str)


# -- streaming code in which nothing at all was found ---------------------------------------

# tests/realworld/atc-net__atc-dataplatform/src/atc/etl/extractors/stream_extractor.py, cut
# down: the stream comes from a method of an object streamlint knows nothing of.
STREAM_EXTRACTOR = '''
class StreamExtractor(Extractor):
    def __init__(self, handle, dataset_key):
        self.handle = handle

    def read(self):
        return self.handle.read_stream()
'''


def test_streaming_code_in_which_nothing_was_found_is_never_compatible() -> None:
    job = extract_text(STREAM_EXTRACTOR, "stream_extractor.py")
    assert job.queries == ()
    [item] = job.unseen
    assert (item.about, item.loc.line) == ("no-query", 7)
    assert "`read_stream`" in item.what
    changed = STREAM_EXTRACTOR.replace("self.handle.read_stream()",
                                       "self.handle.read_stream().dropDuplicates()")
    assert codes(STREAM_EXTRACTOR, changed) == [("UN03", "review")]
    assert codes(STREAM_EXTRACTOR, STREAM_EXTRACTOR) == []


def test_streaming_named_only_in_a_comment_or_a_string_is_not_streaming_code() -> None:
    text = '# reads with spark.readStream elsewhere\nDOC = "uses writeStream"\nx = 1\n'
    assert extract_text(text, "job.py").unseen == ()
    assert codes(text, text.replace("x = 1", "x = 2")) == []


def test_a_pipeline_of_materialized_views_found_its_tables() -> None:
    # tests/realworld/alexott__dlt-files-in-repos-demo/pipelines/DLT-Pipeline.py, cut down:
    # batch tables only, recomputed on every update, nothing to restart from.
    text = ('import dlt\n\n@dlt.table\ndef raw():\n'
            '    return spark.read.format("json").load("/data")\n')
    job = extract_text(text, "pipeline.py")
    assert job.queries == () and job.unseen == ()


# -- generators (found in review: a changed grouping key in a generator read compatible) -----

GENERATED = f"""
src = {KAFKA}
def queries():
    yield src.groupBy("customer_id").count()
for df in queries():
    (df.writeStream.format("delta").outputMode("update")
        .option("checkpointLocation", "/c").start("/p"))
"""


def test_a_dataframe_a_generator_yields_is_read() -> None:
    new = GENERATED.replace('"customer_id"', '"region"')
    assert ("AG01", "incompatible") in codes(GENERATED, new)
    assert codes(GENERATED, GENERATED) == []


def test_a_generator_yielding_nothing_readable_is_never_compatible_on_a_change() -> None:
    old = GENERATED.replace('    yield src.groupBy("customer_id").count()',
                            '    for key in os.environ["KEYS"].split(","):\n'
                            '        yield src.groupBy(key).count()').replace(
                                "\nsrc =", "\nimport os\nsrc =", 1)
    new = old.replace("count()", 'agg(F.sum("amount"))')
    assert codes(old, new) != [] and all(v != "compatible" for _, v in codes(old, new))


# -- functions whose branches all return (found in review) -----------------------------------

TRIGGER_HELPER = f"""
import os
src = {KAFKA}
def trigger_for(w):
    mode = os.getenv("MODE")
    if mode == "a":
        return w.trigger(processingTime="1 minute")
    elif mode == "b":
        return w.trigger(processingTime="5 minutes")
    else:
        return w.trigger(availableNow=True)
w = src.groupBy("k").count().writeStream.format("delta").outputMode("update") \\
    .option("checkpointLocation", "/c")
trigger_for(w).start("/p")
"""


def test_a_later_elif_return_is_not_dropped() -> None:
    """Only the first returning branch was read: a continuous trigger (refused for an
    aggregation) in the `elif` read compatible."""
    new = TRIGGER_HELPER.replace('processingTime="5 minutes"', 'continuous="1 second"')
    assert codes(TRIGGER_HELPER, new) != []
    assert all(verdict != "compatible" for _, verdict in codes(TRIGGER_HELPER, new))
    assert codes(TRIGGER_HELPER, TRIGGER_HELPER) == []


CONTAINER_BUILDER = f"""
import os
src = {KAFKA}
def build():
    if os.getenv("A"):
        return {{"df": src.groupBy("k").count()}}
    else:
        return {{"df": src.groupBy("j").count()}}
build()["df"].writeStream.format("delta").outputMode("update") \\
    .option("checkpointLocation", "/c").start("/p")
"""


def test_dataframes_returned_in_containers_are_chosen_item_by_item() -> None:
    assert ("AG01", "incompatible") in codes(
        CONTAINER_BUILDER, CONTAINER_BUILDER.replace('"k"', '"z"'))
    other = codes(CONTAINER_BUILDER, CONTAINER_BUILDER.replace('"j"', '"z"'))
    assert other != [] and all(verdict != "compatible" for _, verdict in other)
    assert codes(CONTAINER_BUILDER, "\n" + CONTAINER_BUILDER) == []  # lines moved only
