"""Findings at the change where a job's code moves or breaks (issue 31): the job moved into a
module that existed before, a constant star-imported from a configuration module, a setting
passed to a helper from a settings object, an option of a chain whose neighbour changed, and
a file the change made unparsable. Each expected line is found in the inputs by a marker;
each test failed on the code before its change (stop 38)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo
from test_at_change import CODES, diff, line_of

from streamlint.cli import main
from streamlint.model import Loc
from streamlint.policy.at_change import at_change
from streamlint.rulebook.matrix import Finding

SOURCE = CODES["source-identity-changed"]


def repository(folder: Path, files: dict[str, str]) -> Path:
    """A repository on disk (a pyproject and `files`); the path of its `job.py`."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "orders"\n')
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder / "job.py"


def diff_repos(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: dict[str, str],
               new: dict[str, str]) -> dict:
    before = repository(tmp_path / "old", old)
    after = repository(tmp_path / "new", new)
    main(["diff", str(before), str(after), "--format", "json", "--exit-zero"])
    return json.loads(capsys.readouterr().out)


NEIGHBOURS = '''TOPIC = "{topic}"

events = (spark.readStream
          .format("kafka")
          .option("subscribe", TOPIC)
          .option("startingOffsets", "earliest"){extra}
          .load())
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/pay").start("/out/pay")
'''


def test_an_option_is_not_placed_at_another_option_added_to_its_chain(tmp_path: Path,
                                                                       capsys) -> None:
    # The topic changed at its constant; a new `.option(...)` line in the same chain is
    # another setting, not the cause (it used to take the finding: the first changed line
    # of the statement).
    old = NEIGHBOURS.format(topic="pay", extra="")
    new = NEIGHBOURS.format(topic="pay_v2", extra='\n          .option("groupIdPrefix", "p")')
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert finding["new"]["line"] == line_of(new, "TOPIC =")
    assert [r["line"] for r in finding["related"]] == [line_of(new, '"subscribe"')]


CONSUMER = '''TOPIC = "{topic}"


def read(spark):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", "broker:9092")
            .option("subscribe", TOPIC)
            .load())
'''

INLINE = '''events = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", "broker:9092")
          .option("subscribe", "orders")
          .load())
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''

CALLS = '''from consumer import read

events = read(spark)
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''


def test_a_job_moved_into_a_module_that_existed_is_placed_at_the_module_change(
        tmp_path: Path, capsys) -> None:
    # The old job reads inline and never imports consumer.py, which its repository had all
    # along. The new job reads through it, and its topic changed there: the module is
    # compared with what it was (not taken as new, every line changed), so the finding
    # points at the changed constant.
    data = diff_repos(tmp_path, capsys,
                      {"job.py": INLINE, "consumer.py": CONSUMER.format(topic="orders")},
                      {"job.py": CALLS, "consumer.py": CONSUMER.format(topic="orders_v2")})
    [finding] = [f for f in data["findings"] if f["code"] == SOURCE]
    module = CONSUMER.format(topic="orders_v2")
    assert (finding["new"]["path"], finding["new"]["line"]) == (
        str(tmp_path / "new" / "consumer.py"), line_of(module, "TOPIC ="))
    assert [(r["path"], r["line"]) for r in finding["related"]] == [
        (str(tmp_path / "new" / "consumer.py"), line_of(module, '"subscribe"'))]


def test_check_compares_the_module_a_job_moved_into_with_what_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # The same move in `check`: the base's consumer.py is read for the comparison although
    # the base's job never imports it.
    repo = Repo(tmp_path)
    repo.put("pyproject.toml", '[project]\nname = "orders"\n')
    repo.put("job.py", INLINE)
    repo.put("consumer.py", CONSUMER.format(topic="orders"))
    repo.commit("inline")
    repo.put("job.py", CALLS)
    repo.put("consumer.py", CONSUMER.format(topic="orders_v2"))
    repo.commit("through consumer.py")
    monkeypatch.chdir(tmp_path)
    main(["check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json", "--exit-zero"])
    [job] = [f for f in json.loads(capsys.readouterr().out)["files"] if f["path"] == "job.py"]
    [finding] = [f for f in job["findings"] if f["code"] == SOURCE]
    module = CONSUMER.format(topic="orders_v2")
    assert (finding["new"]["path"], finding["new"]["line"]) == (
        "consumer.py", line_of(module, "TOPIC ="))


STARRED = '''from conf import *

events = spark.readStream.format("kafka").option("subscribe", "orders").load()
(events.writeStream.format("json")
    .option("path", f"{SINK}/json")
    .option("checkpointLocation", "/chk/orders")
    .start())
'''


def test_a_star_imported_constant_changed_is_where_the_finding_points(tmp_path: Path,
                                                                      capsys) -> None:
    conf = 'BROKER = "localhost"\nSINK = "{sink}"\n'
    data = diff_repos(tmp_path, capsys, {"job.py": STARRED, "conf.py": conf.format(sink="/a")},
                      {"job.py": STARRED, "conf.py": conf.format(sink="/b")})
    [finding] = [f for f in data["findings"] if f["code"] == CODES["file-sink-path-changed"]]
    assert (finding["new"]["path"], finding["new"]["line"]) == (
        str(tmp_path / "new" / "conf.py"), 2)
    assert [r["line"] for r in finding["related"]] == [line_of(STARRED, '"path"')]


SETTINGS = '''class Settings:
    broker: str = "broker:9092"
    topic: str = "{topic}"


settings = Settings()
'''

PASSED = '''from config import settings


def read(spark, topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", settings.broker)
            .option("subscribe", topic)
            .load())


def main():
    events = read(spark, settings.topic)
    events.writeStream.format("delta") \\
        .option("checkpointLocation", "/chk/orders").start("/out/orders")


main()
'''


def test_a_settings_field_passed_to_a_helper_is_where_the_finding_points(tmp_path: Path,
                                                                         capsys) -> None:
    # `read(spark, settings.topic)` passes what it always passed; the field changed in
    # config.py, which the caller's argument reads.
    data = diff_repos(tmp_path, capsys,
                      {"job.py": PASSED, "config.py": SETTINGS.format(topic="orders")},
                      {"job.py": PASSED, "config.py": SETTINGS.format(topic="orders_v2")})
    [finding] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert (finding["new"]["path"], finding["new"]["line"]) == (
        str(tmp_path / "new" / "config.py"), line_of(SETTINGS, "topic:"))
    assert [r["line"] for r in finding["related"]] == [line_of(PASSED, '"subscribe"')]


UNCLOSED = '''events = spark.readStream.format("kafka").option("subscribe", "orders").load()
totals = (
    events
    .groupBy("merchant")
    .count()
)
totals.writeStream.format("delta").outputMode("complete") \\
    .option("checkpointLocation", "/chk/totals").start("/out/totals")
'''


def test_a_syntax_error_points_at_the_edit_that_made_it(tmp_path: Path, capsys) -> None:
    # Python reports "'(' was never closed" at the opening bracket, which did not change;
    # the edit took the closing bracket out and renamed the sink (an edit that parses).
    new = UNCLOSED.replace('.count()\n)', '.count()\n').replace("/out/totals", "/out/t2")
    data = diff(tmp_path, capsys, UNCLOSED, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["new-version-cannot-start"]]
    assert "never closed" in finding["message"]
    assert finding["new"]["line"] == line_of(new, ".count()") + 1  # the line left empty
    assert [r["line"] for r in finding["related"]] == [line_of(new, "totals = (")]


def test_a_syntax_error_with_two_breaking_edits_stays_where_python_reports_it(
        tmp_path: Path, capsys) -> None:
    # Two edits each break the file: undoing one alone does not make it parse, so which
    # one is the cause is not told.
    new = UNCLOSED.replace('.count()\n)', '.count()\n').replace('"merchant")', '"merchant"')
    data = diff(tmp_path, capsys, UNCLOSED, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["new-version-cannot-start"]]
    assert finding["related"] == []


METADATA = '''# Databricks notebook source
dbutils.widgets.text("catalog", "{catalog}")
dbutils.widgets.text("checkpoint_root", "{root}")
META = dbutils.widgets.get("catalog")
CHECKPOINTS = dbutils.widgets.get("checkpoint_root")


def load_config(spark):
    rows = spark.table(f"{{META}}.operations").collect(){extra}
    return rows[0].asDict()


def build_reader(spark, cfg):
    return spark.readStream.format("delta").table(cfg["source"])


cfg = load_config(spark)
df = build_reader(spark, cfg)
df.writeStream.format("delta") \\
    .option("checkpointLocation", f"{{CHECKPOINTS}}/orders").start("/out/orders")
'''


def unresolved(data: dict, about: str) -> list[dict]:
    """The findings of a value known only at run time whose message names `about`."""
    return [f for f in data["findings"]
            if f["code"] == CODES["unresolved-value-changed"] and about in f["message"]]


def test_a_value_a_called_function_reads_points_at_what_that_function_reads(
        tmp_path: Path, capsys) -> None:
    # The source table comes from metadata that `load_config` reads from the catalog its
    # widget names; the checkpoint from the other widget. Both defaults changed: each
    # finding points at its own widget, the table's through what the unchanged function
    # reads of the notebook (META).
    old = METADATA.format(catalog="demo", root="/chk", extra="")
    new = METADATA.format(catalog="console", root="/chk2", extra="")
    data = diff(tmp_path, capsys, old, new)
    [table] = unresolved(data, "table source option")
    [checkpoint] = unresolved(data, "checkpointLocation")
    assert table["new"]["line"] == line_of(new, '"catalog", "console"')
    assert [r["line"] for r in table["related"]] == [line_of(new, '.table(cfg["source"])')]
    assert checkpoint["new"]["line"] == line_of(new, '"checkpoint_root", "/chk2"')


def test_a_called_function_reading_both_changed_values_leaves_the_finding(
        tmp_path: Path, capsys) -> None:
    # `load_config` reads both widgets: which one the table comes from is not told.
    extra = '\n    print(CHECKPOINTS)'
    old = METADATA.format(catalog="demo", root="/chk", extra=extra)
    new = METADATA.format(catalog="console", root="/chk2", extra=extra)
    data = diff(tmp_path, capsys, old, new)
    [table] = unresolved(data, "table source option")
    assert table["new"]["line"] == line_of(new, '.table(cfg["source"])')
    assert table["related"] == []


SCOPES = '''CHECKPOINT_ROOT = "{root}"
SCRATCH = "{scratch}"


def scratch():
    checkpoint = f"{{SCRATCH}}/tmp"
    return checkpoint


def run():
    checkpoint = f"{{CHECKPOINT_ROOT}}/orders"
    events = spark.readStream.format("kafka").option("subscribe", "orders").load()
    events.writeStream.format("delta") \\
        .option("checkpointLocation", checkpoint).start("/out/orders")


run()
'''


def test_another_functions_variable_of_the_same_name_is_no_cause(tmp_path: Path,
                                                                  capsys) -> None:
    # `checkpoint` in scratch() is scratch's own: only run()'s binding, and the constant
    # it reads, are the query's.
    old = SCOPES.format(root="/chk", scratch="/s")
    new = SCOPES.format(root="/chk2", scratch="/s2")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["checkpoint-location-changed"]]
    assert finding["new"]["line"] == line_of(new, "CHECKPOINT_ROOT =")


WINDOWED = '''from pyspark.sql.functions import window


def run(size="{size}"):
    df = spark.readStream.format("rate").load()
    df = df.withWatermark("timestamp", "1 minute").groupBy(window("timestamp", size)).count()
    df = df.select("window", "count"){comment}
    df.writeStream.format("delta").outputMode("append") \\
        .option("checkpointLocation", "/chk/w").start("/out/w")


run()
'''


def test_a_changed_default_is_the_cause_not_a_later_line_of_the_function(
        tmp_path: Path, capsys) -> None:
    # The window's size is the parameter's default, which changed. The `df = ...` edited
    # after the grouping binds the name anew: the grouping did not read it.
    old = WINDOWED.format(size="10 minutes", comment="")
    new = WINDOWED.format(size="5 minutes", comment="  # the columns kept")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["window-changed"]]
    assert finding["new"]["line"] == line_of(new, "def run(")
    assert [r["line"] for r in finding["related"]] == [line_of(new, ".groupBy(")]


CONDITION = '''MODE = "{mode}"

events = spark.readStream.format("kafka").option("subscribe", "orders").load()
if MODE == "dedupe":
    events = events.dropDuplicates(["id"])
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''


def test_a_finding_at_a_condition_points_at_what_the_condition_reads(tmp_path: Path,
                                                                     capsys) -> None:
    # The `if` did not change, nor its branch: the constant its condition reads did.
    old = CONDITION.format(mode="plain")
    new = CONDITION.format(mode="dedupe")
    data = diff(tmp_path, capsys, old, new)
    moved = [f for f in data["findings"] if f["verdict"] != "compatible"]
    assert moved, data["findings"]
    for finding in moved:
        assert finding["new"]["line"] == line_of(new, "MODE =")


LOOPED = '''OPTIONS = {{"subscribe": "{topic}", "startingOffsets": "earliest"}}
ROOT = "{root}"

reader = spark.readStream.format("kafka")
for key, value in OPTIONS.items():
    reader = reader.option(key, value)
events = reader.load()
events.writeStream.format("delta") \\
    .option("checkpointLocation", f"{{ROOT}}/orders").start("/out/orders")
'''


def test_an_option_set_in_a_loop_points_at_what_the_loop_reads(tmp_path: Path,
                                                               capsys) -> None:
    # `for key, value in OPTIONS.items()` binds what the `.option(key, value)` gives.
    old = LOOPED.format(topic="orders", root="/chk")
    new = LOOPED.format(topic="orders_v2", root="/chk2")
    data = diff(tmp_path, capsys, old, new)
    [source] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert source["new"]["line"] == line_of(new, "OPTIONS =")
    assert [r["line"] for r in source["related"]] == [line_of(new, "reader.option(key")]


BUILT = '''def options_for(kind):
    return {{"subscribe": "{topic}", "startingOffsets": "earliest", "kind": kind}}


def read(spark, options):
    reader = spark.readStream.format("kafka")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


kafka_options = options_for("orders")
events = read(spark, kafka_options)
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''


def test_an_argument_built_by_a_changed_function_points_into_it(tmp_path: Path,
                                                                capsys) -> None:
    # read() is passed what it always was, built by options_for(), whose code changed.
    old, new = BUILT.format(topic="orders"), BUILT.format(topic="orders_v2")
    data = diff(tmp_path, capsys, old, new)
    [source] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert source["new"]["line"] == line_of(new, '"subscribe"')
    assert [r["line"] for r in source["related"]] == [line_of(new, "reader.option(key")]


SHADOWED = '''topic = "{scratch}"
ORDERS = "{orders}"


def read(spark, topic):
    return spark.readStream.format("kafka").option("subscribe", topic).load()


events = read(spark, ORDERS)
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''


def test_a_module_variable_named_like_a_parameter_is_not_what_the_call_passes(
        tmp_path: Path, capsys) -> None:
    # Inside read(), `topic` is the parameter: the module's `topic` changed too, but the
    # call passes ORDERS.
    old = SHADOWED.format(scratch="a", orders="orders")
    new = SHADOWED.format(scratch="b", orders="orders_v2")
    data = diff(tmp_path, capsys, old, new)
    [source] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert source["new"]["line"] == line_of(new, "ORDERS =")


PICKED = '''from pyspark.sql.functions import window

CHECKPOINT = "/chk/counts"


def write(df):
    return (df.writeStream.format("console").outputMode("update")
            .option("checkpointLocation", CHECKPOINT).start())


def promotion_counts(size="2 minutes"):
    df = spark.readStream.format("kafka").option("subscribe", "purchases").load()
    df = df.withWatermark("timestamp", "1 hour").groupBy(window("timestamp", size), "promo").count()
    return write(df)


def click_counts(size="2 minutes"):
    df = spark.readStream.format("kafka").option("subscribe", "clicks").load()
    df = df.withWatermark("timestamp", "1 hour").groupBy(window("timestamp", size), "aid").count()
    return write(df)


{promotions}promotion_counts().awaitTermination()
{clicks}click_counts().awaitTermination()
'''


def test_a_function_no_longer_called_points_where_its_call_was(tmp_path: Path,
                                                               capsys) -> None:
    # The commit comments one call out and the other in. The function no longer called is
    # still read (with what its parameters may be), and its findings point at the line that
    # stopped calling it, not into its unchanged body.
    old = PICKED.format(promotions="", clicks="# ")
    new = PICKED.format(promotions="# ", clicks="")
    data = diff(tmp_path, capsys, old, new)
    lines = {f["new"]["line"] for f in data["findings"] if f["verdict"] != "compatible"}
    assert line_of(new, "# promotion_counts()") in lines
    assert lines <= {line_of(new, "# promotion_counts()"), line_of(new, "click_counts().")}


TRIGGERED = '''class Handle:
    def __init__(self, trigger_type):
        self._trigger_type = trigger_type

    def _add_trigger(self, writer):
        if self._trigger_type == "once":
            return writer.trigger(once=True)
        else:
            return writer.trigger(processingTime="1 minute")

    def upsert(self, df):
        writer = (df.writeStream.format("delta")
                  .option("checkpointLocation", "{checkpoint}"))
        writer = self._add_trigger(writer)
        writer.start("/out/orders")


events = spark.readStream.format("kafka").option("subscribe", "orders").load()
Handle(dbutils.widgets.get("trigger")).upsert(events)
'''


def test_a_finding_at_an_if_follows_what_its_branches_are_given(tmp_path: Path,
                                                                capsys) -> None:
    # The branches of the `if` both start from `writer`, which the caller built with a
    # changed checkpoint: that is where the finding about both branches points.
    old = TRIGGERED.format(checkpoint="/chk/orders")
    new = TRIGGERED.format(checkpoint="/chk/orders_v2")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["unresolved-code"]]
    assert finding["new"]["line"] == line_of(new, '"checkpointLocation"')
    assert [r["line"] for r in finding["related"]] == [line_of(new, "if self._trigger_type")]


FLOW = '''import dlt


@dlt.table(name="raw")
def raw():
    return spark.{read}.format("json").load("/data/raw")
'''


def test_a_finding_at_a_flows_def_points_at_the_changed_line_of_its_body(tmp_path: Path,
                                                                        capsys) -> None:
    old, new = FLOW.format(read="read"), FLOW.format(read="readStream")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["pipeline-table-type-changed"]]
    assert finding["new"]["line"] == line_of(new, "readStream")
    assert [r["line"] for r in finding["related"]] == [line_of(new, "def raw")]


STAGED = '''import dlt


@dlt.{kind}(name="orders_stg")
def orders_stg():
    return spark.readStream.table("bronze.orders")


dlt.create_streaming_table("orders_silver")
dlt.create_auto_cdc_flow(target="orders_silver", source="orders_stg", keys=["id"],
                         sequence_by="ts")
'''


def test_a_finding_in_a_function_whose_decorator_changed_points_at_the_decorator(
        tmp_path: Path, capsys) -> None:
    # A table turned into a view: the flow now reads what the view reads. Nothing in the
    # function's body changed; its decorator did.
    old, new = STAGED.format(kind="table"), STAGED.format(kind="view")
    data = diff(tmp_path, capsys, old, new)
    moved = [f for f in data["findings"] if f["verdict"] != "compatible"]
    assert moved, data["findings"]
    assert {f["new"]["line"] for f in moved if f["new"]} == {line_of(new, "@dlt.view")}


FRAMEWORK = '''import dlt


class Flow:
    def __init__(self, spec):
        self.spec = spec

    def apply_snapshot(self):
        dlt.apply_changes_from_snapshot(target=self.spec["target"], keys=["id"])

    def write(self):
        if self.spec["cdc"]{extra}:
            self.apply_snapshot()
'''


def unread_at(old: str, new: str, marker: str, kind: str) -> Finding:
    """A finding of the given change kind at the line holding `marker`, as at_change places
    it."""
    found = Finding("UN03", "streaming-code-not-read", "review", "", "", "", "(not read)",
                    Loc("old.py", line_of(old, marker), 0), Loc("new.py", line_of(new, marker), 0),
                    kind=kind)
    [moved] = at_change((found,), old, "old.py", new, "new.py")
    return moved


def test_unread_code_points_at_the_changed_code_that_reaches_it() -> None:
    # Code streamlint did not read is reported because what can reach it changed (the
    # method calling it, extract/reach.py): that changed line is where it points.
    old = FRAMEWORK.format(extra="")
    new = FRAMEWORK.format(extra=' and not self.spec["quality"]')
    moved = unread_at(old, new, "dlt.apply_changes_from_snapshot", "unseen")
    assert moved.new is not None and moved.new.line == line_of(new, 'and not self.spec')
    assert moved.related == (Loc("new.py", line_of(new, "dlt.apply_changes"), 0),)


def test_a_finding_of_read_code_is_not_moved_to_what_calls_its_function() -> None:
    # The same place for a finding about code streamlint did read: a changed caller is not
    # told to be its cause.
    old = FRAMEWORK.format(extra="")
    new = FRAMEWORK.format(extra=' and not self.spec["quality"]')
    moved = unread_at(old, new, "dlt.apply_changes_from_snapshot", "agg.keys")
    assert moved.new == Loc("new.py", line_of(new, "dlt.apply_changes"), 0)
    assert moved.related == ()


CONSTRUCTED = '''class Pipeline:
    def __init__(self, spark, topic):
        self.spark = spark
        self.topic = topic

    def run(self):
        events = (self.spark.readStream.format("kafka")
                  .option("kafka.bootstrap.servers", "broker:9092")
                  .option("subscribe", self.topic)
                  .load())
        return events.writeStream.format("delta") \\
            .option("checkpointLocation", "/chk/orders").start("/out/orders")


def main():
    pipeline = Pipeline(
        spark,
        "{topic}",
    )
    pipeline.run()


main()
'''


def test_a_field_set_from_a_constructor_argument_points_at_that_argument(tmp_path: Path,
                                                                        capsys) -> None:
    # `.option("subscribe", self.topic)` in run(): the object run() is called on was built
    # with another topic.
    old, new = CONSTRUCTED.format(topic="orders"), CONSTRUCTED.format(topic="orders_v2")
    data = diff(tmp_path, capsys, old, new)
    [source] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert source["new"]["line"] == line_of(new, '"orders_v2",')
    assert [r["line"] for r in source["related"]] == [line_of(new, '"subscribe"')]


BUILT_IN_INIT = '''class Reader:
    def __init__(self, spark, topic):
        self.stream = self._read(spark, topic)

    def _read(self, spark, topic):
        return spark.readStream.format("kafka").option("subscribe", topic).load()


reader = Reader(
    spark,
    "{topic}",
)
reader.stream.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''


def test_an_argument_of_a_class_is_what_its_init_passes_on(tmp_path: Path, capsys) -> None:
    # `Reader(spark, "orders_v2")` calls Reader.__init__, which passes the topic to _read().
    old, new = BUILT_IN_INIT.format(topic="orders"), BUILT_IN_INIT.format(topic="orders_v2")
    data = diff(tmp_path, capsys, old, new)
    [source] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert source["new"]["line"] == line_of(new, '"orders_v2",')
    assert [r["line"] for r in source["related"]] == [line_of(new, '"subscribe"')]


HELPED_FLOW = '''import dlt


def conformed(spark):
    return spark.{read}.table("bronze.orders")


@dlt.table(name="orders_prep")
def orders_prep():
    return conformed(spark)
'''


def test_a_flows_def_points_into_the_helper_its_body_calls(tmp_path: Path, capsys) -> None:
    # The flow's own body did not change; the helper it calls now reads a stream.
    old, new = HELPED_FLOW.format(read="read"), HELPED_FLOW.format(read="readStream")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["pipeline-table-type-changed"]]
    assert finding["new"]["line"] == line_of(new, "readStream")


TWICE = '''from pyspark.sql.functions import window


def counts(df):
    return (df.withWatermark("timestamp", "1 minute")
            .groupBy(window("timestamp", "5 minutes")).count())


def run():
    raw = spark.readStream.format("rate").load()
{body}


run()
'''

ALERTS = '''    alerts = {alerts}
    alerts.writeStream.format("delta").outputMode("append") \\
        .option("checkpointLocation", "/chk/alerts").start("/out/alerts")'''

SILVER = '''
    silver = counts(raw.where("value > 0"))
    silver.writeStream.format("delta").outputMode("append") \\
        .option("checkpointLocation", "/chk/silver").start("/out/silver")'''


def test_an_operator_a_helper_applies_points_at_the_call_that_made_this_query(
        tmp_path: Path, capsys) -> None:
    # counts() is called twice in the new version, both calls new lines: the grouping added
    # to the alerts query is the one its own call applied.
    old = TWICE.format(body=ALERTS.format(alerts="raw"))
    new = TWICE.format(body=ALERTS.format(alerts="counts(raw)") + SILVER)
    data = diff(tmp_path, capsys, old, new)
    [added] = [f for f in data["findings"] if f["code"] == CODES["stateful-operator-added"]
               and "alerts" in f["query"]]
    assert added["new"]["line"] == line_of(new, "alerts = counts(raw)")
    assert [r["line"] for r in added["related"]] == [line_of(new, ".groupBy(")]


AFTER_IF = '''import sys

events = spark.readStream.format("rate").load()
writer = events.writeStream.format(sys.argv[1])
if sys.argv[1] != "kafka":
    writer = writer.option("path", "/out/events")
(
    writer.option(
        "checkpointLocation", "{checkpoint}"
    )
    .start()
)
'''


def test_a_finding_at_an_if_points_at_the_changed_statement_using_what_it_set(
        tmp_path: Path, capsys) -> None:
    # Both branches leave `writer` to the statement after the `if`, whose checkpoint changed.
    old = AFTER_IF.format(checkpoint="/chk/events")
    new = AFTER_IF.format(checkpoint="/chk/events_v2")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["unresolved-code"]]
    assert finding["new"]["line"] == line_of(new, "/chk/events_v2")


LOOPED_OPTIONS = '''OPTIONS = {{
    "cloudFiles.format": "json",
    {extra}"cloudFiles.schemaEvolutionMode": "rescue",
}}

reader = spark.readStream.format("cloudFiles")
for key, value in OPTIONS.items():
    reader = reader.option(key, value)
events = reader.load("/landing/events")
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/events").start("/out/events")
'''


def test_a_removed_option_is_placed_where_the_options_given_with_it_are(tmp_path: Path,
                                                                       capsys) -> None:
    # The option was given by the loop, with the others; it is gone from the line of the
    # dict the loop reads. Its finding points at that line, the loop as where it is used.
    old = LOOPED_OPTIONS.format(extra='"cloudFiles.inferColumnTypes": "true", ')
    new = LOOPED_OPTIONS.format(extra="")
    data = diff(tmp_path, capsys, old, new)
    [removed] = [f for f in data["findings"] if "inferColumnTypes" in f["message"]]
    assert removed["new"]["line"] == line_of(new, '"cloudFiles.schemaEvolutionMode"')
    assert [r["line"] for r in removed["related"]] == [line_of(new, "reader.option(key")]
