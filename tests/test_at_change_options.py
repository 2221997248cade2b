"""Findings about one option, one schema or one partitioning point where it was given (the
`.option("subscribe", ...)` line of a chain of options, `.schema(...)`, `.partitionBy(...)`),
so that a chain whose options read several changed values still places each finding at its
own cause (issue 31, findings at the change). Expected lines are found by a marker."""

from __future__ import annotations

from pathlib import Path

from test_at_change import CODES, diff, line_of

CHAIN = '''TOPIC = "{topic}"
LIMIT = {limit}

events = (spark.readStream
          .format("kafka")
          .option("subscribe", TOPIC)
          .option("maxOffsetsPerTrigger", LIMIT)
          .load())
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/pay").start("/out/pay")
'''


def test_each_option_finding_points_at_the_constant_its_own_line_reads(tmp_path: Path,
                                                                          capsys) -> None:
    old, new = CHAIN.format(topic="pay", limit=100), CHAIN.format(topic="pay_v2", limit=500)
    data = diff(tmp_path, capsys, old, new)
    [topic] = [f for f in data["findings"] if f["code"] == CODES["source-identity-changed"]]
    [limit] = [f for f in data["findings"] if f["code"] == CODES["rate-limit-changed"]]
    assert topic["new"]["line"] == line_of(new, "TOPIC =")
    assert [r["line"] for r in topic["related"]] == [line_of(new, '"subscribe"')]
    assert limit["new"]["line"] == line_of(new, "LIMIT =")
    assert [r["line"] for r in limit["related"]] == [line_of(new, '"maxOffsetsPerTrigger"')]


def test_an_option_changed_in_the_chain_is_reported_on_its_own_line(tmp_path: Path,
                                                                    capsys) -> None:
    old = CHAIN.format(topic="pay", limit=100)
    new = old.replace('"subscribe", TOPIC', '"subscribe", "refunds"').replace(
        '"maxOffsetsPerTrigger", LIMIT', '"maxOffsetsPerTrigger", 900')
    data = diff(tmp_path, capsys, old, new)
    [topic] = [f for f in data["findings"] if f["code"] == CODES["source-identity-changed"]]
    [limit] = [f for f in data["findings"] if f["code"] == CODES["rate-limit-changed"]]
    assert topic["new"]["line"] == line_of(new, '"refunds"') and topic["related"] == []
    assert limit["new"]["line"] == line_of(new, "900") and limit["related"] == []


PARTITIONED = '''PARTS = [{columns}]
OUT = "{out}"

events = spark.readStream.format("rate").load()
(events.writeStream
    .format("parquet")
    .partitionBy(*PARTS)
    .option("checkpointLocation", "/chk/rate")
    .start(OUT))
'''


def test_partitioning_and_path_findings_point_at_their_own_constants(tmp_path: Path,
                                                                    capsys) -> None:
    old = PARTITIONED.format(columns='"value"', out="/out/rate")
    new = PARTITIONED.format(columns='"timestamp"', out="/out/rate_v2")
    data = diff(tmp_path, capsys, old, new)
    [parts] = [f for f in data["findings"] if f["code"] == CODES["sink-partitioning-changed"]]
    assert parts["new"]["line"] == line_of(new, "PARTS =")
    assert [r["line"] for r in parts["related"]] == [line_of(new, "partitionBy")]
    [path] = [f for f in data["findings"] if f["code"] == CODES["file-sink-path-changed"]]
    assert path["new"]["line"] == line_of(new, "OUT =")
    assert [r["line"] for r in path["related"]] == [line_of(new, ".start(OUT)")]


SCHEMA = '''from pyspark.sql.types import StructType, StructField, LongType
COLUMNS = StructType([StructField("{column}", LongType())])
FILES = {files}

events = (spark.readStream
          .format("json")
          .schema(COLUMNS)
          .option("maxFilesPerTrigger", FILES)
          .load("/in/events"))
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/events").start("/out/events")
'''


def test_schema_and_option_findings_point_at_their_own_constants(tmp_path: Path,
                                                                capsys) -> None:
    old, new = SCHEMA.format(column="id", files=10), SCHEMA.format(column="user_id", files=50)
    data = diff(tmp_path, capsys, old, new)
    schema = [f for f in data["findings"] if "declared schema" in f["message"]]
    limit = [f for f in data["findings"] if "maxFilesPerTrigger" in f["message"]]
    assert schema and limit
    assert all(f["new"]["line"] == line_of(new, "COLUMNS =") for f in schema)
    assert all(f["new"]["line"] == line_of(new, "FILES =") for f in limit)


WHICH = '''def read(topic):
    return spark.readStream.format("kafka").option("subscribe", topic).load()


def run_clicks():
    read("clicks").writeStream.format("delta") \\
        .option("checkpointLocation", "/chk/shared").start("/out/x")


def run_views():
    read("views").writeStream.format("delta") \\
        .option("checkpointLocation", "/chk/shared").start("/out/x")


{call}()
'''


def test_a_topic_changed_by_which_function_runs_points_at_that_call(tmp_path: Path,
                                                                     capsys) -> None:
    # Each call of `read` passes what it always passed: what changed is which one runs.
    old, new = WHICH.format(call="run_clicks"), WHICH.format(call="run_views")
    data = diff(tmp_path, capsys, old, new)
    # (Both functions' queries share the checkpoint: each is paired with the other, so the
    # topic changes both ways.)
    found = [f for f in data["findings"] if f["code"] == CODES["source-identity-changed"]]
    assert len(found) == 2
    for topic in found:
        assert topic["new"]["line"] == len(new.splitlines())  # `run_views()`
        assert [r["line"] for r in topic["related"]] == [line_of(new, '"subscribe"')]


WIDGETS = '''# Databricks notebook source
dbutils.widgets.text("checkpoint_root", "{root}")
dbutils.widgets.text("topic", "{topic}")
ROOT = dbutils.widgets.get("checkpoint_root")

events = (spark.readStream.format("kafka")
          .option("subscribe", dbutils.widgets.get("topic"))
          .load())
(events.writeStream.format("delta")
    .option("checkpointLocation", f"{{ROOT}}/pay")
    .start("/out/pay"))
'''


def test_a_widget_default_changed_is_where_its_findings_point(tmp_path: Path, capsys) -> None:
    old = WIDGETS.format(root="/chk/a", topic="pay")
    new = WIDGETS.format(root="/chk/b", topic="pay_v2")
    data = diff(tmp_path, capsys, old, new)
    checkpoint = [f for f in data["findings"] if "checkpoint_root" in f["message"]
                  or "checkpointLocation" in f["message"]]
    topic = [f for f in data["findings"] if "subscribe" in f["message"]]
    assert checkpoint and topic
    for found in checkpoint:
        assert found["new"]["line"] == line_of(new, 'text("checkpoint_root"')
        assert found["old"]["line"] == line_of(old, 'text("checkpoint_root"')
    for found in topic:
        assert found["new"]["line"] == line_of(new, 'text("topic"')


CALLED_TWICE = '''def write(df, name, parts):
    (df.writeStream.format("parquet")
        .partitionBy(*parts)
        .option("checkpointLocation", f"/chk/{{name}}")
        .start(f"/out/{{name}}"))


events = spark.readStream.format("rate").load()
write(events, "a", {a})
write(events, "b", {b})
'''


def test_each_query_of_a_function_called_twice_points_at_its_own_call(tmp_path: Path,
                                                                       capsys) -> None:
    # Both calls changed: each query's finding points at the call that started it.
    old = CALLED_TWICE.format(a='["value"]', b='["value"]')
    new = CALLED_TWICE.format(a='["timestamp"]', b='["value", "timestamp"]')
    data = diff(tmp_path, capsys, old, new)
    found = {f["query"]: f for f in data["findings"]
             if f["code"] == CODES["sink-partitioning-changed"]}
    assert found["/chk/a"]["new"]["line"] == line_of(new, 'write(events, "a"')
    assert found["/chk/b"]["new"]["line"] == line_of(new, 'write(events, "b"')
    for finding in found.values():
        assert [r["line"] for r in finding["related"]] == [line_of(new, "partitionBy")]


RECEIVER = '''LIMIT = {limit}


def conf():
    return {{"path": "{path}"}}


def read(cfg, options):
    reader = spark.readStream.format("json").schema("id LONG").options(**options)
    return reader.load(cfg["path"])


read(conf(), {{"maxFilesPerTrigger": LIMIT}}).writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/x").start("/out/x")
'''


def test_a_finding_about_one_call_is_not_moved_by_what_its_receiver_reads(tmp_path: Path,
                                                                           capsys) -> None:
    # The path changed inside conf(), which nothing here follows; the reader it is loaded by
    # reads LIMIT, which changed too, but is not what changed the path.
    old = RECEIVER.format(limit=10, path="/in/a")
    new = RECEIVER.format(limit=50, path="/in/b")
    data = diff(tmp_path, capsys, old, new)
    [path] = [f for f in data["findings"] if "`path`" in f["message"]]
    [limit] = [f for f in data["findings"] if "maxFilesPerTrigger" in f["message"]]
    assert limit["new"]["line"] == line_of(new, "LIMIT =")
    assert path["new"]["line"] != line_of(new, "LIMIT =")
