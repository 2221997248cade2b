"""Findings at the change inside a function's body or an `if`'s branches (issue 31): a finding
on `.foreachBatch(upsert)` about what the sink function writes points at the changed line of
`def upsert`, and one on a run-time condition whose other branch streamlint does not read
points at the changed line of that `if`, or of the function its branches name. A changed
comment, docstring or respaced line is not the change. Where two functions the line names
changed, which one did is not told and the finding stays. Expected lines are found in the
inputs' text by a marker."""

from __future__ import annotations

from pathlib import Path

from test_at_change_calls import diff, line_of

from streamlint.model import Loc
from streamlint.policy.at_change import at_change
from streamlint.rulebook.book import load_rules
from streamlint.rulebook.matrix import Finding

CODES = {rule.name: rule.code for rule in load_rules()}

UPSERT = '''from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()


def upsert(batch, epoch_id):
    """{doc}"""
    {comment}
    {write}


events = spark.readStream.format("kafka").option("subscribe", "orders").load()
(events.selectExpr("CAST(value AS STRING) AS v")
    .writeStream
    .option("checkpointLocation", "/chk/orders")
    .foreachBatch(upsert)
    .start())
'''
APPEND = 'batch.write.mode("append").saveAsTable("bronze.orders")'
DEDUP = 'batch.dropDuplicates(["v"]).write.mode("append").saveAsTable("bronze.orders")'

HELPER = '''def clean(batch):
    return batch{dedup}


class Sink:
    def start(self, events):
        def save(batch, epoch_id):
            clean(batch).write.mode("append").saveAsTable("bronze.orders")

        return (events.selectExpr("CAST(value AS STRING) AS v").writeStream
                .option("checkpointLocation", "/chk/orders")
                .foreachBatch(save)
                .start())


Sink().start(spark.readStream.format("kafka").option("subscribe", "orders").load())
'''

BRANCHES = '''import sys


def save(batch, epoch):
    batch.write.mode("{mode}").parquet("/t/e")


df = spark.readStream.format("kafka").option("subscribe", "events").load()
writer = (df.selectExpr("CAST(value AS STRING) AS v").writeStream
          .option("checkpointLocation", "/chk/e"))
if sys.argv[1] == "csv":
    writer = writer.format("csv").option("path", "/t/e")
else:
    writer = writer.foreachBatch(save)
writer.start()
'''


def test_a_changed_batch_function_is_where_the_finding_points(tmp_path: Path,
                                                              capsys) -> None:
    old = UPSERT.format(doc="Write one micro-batch.", comment="", write=APPEND)
    new = UPSERT.format(doc="Write one micro-batch, once per key.",
                        comment="# keys arrive twice from the producer", write=DEDUP)
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"]
                 if f["code"] == CODES["foreach-written-data-changed"]]
    # not the docstring nor the comment above it, which changed first
    assert finding["new"]["line"] == line_of(new, "dropDuplicates")
    assert finding["old"]["line"] == line_of(old, 'batch.write.mode("append")')
    assert [r["line"] for r in finding["related"]] == [line_of(new, ".foreachBatch(upsert)")]


def test_a_function_the_nested_batch_function_calls(tmp_path: Path, capsys) -> None:
    old, new = HELPER.format(dedup=""), HELPER.format(dedup='.dropDuplicates(["v"])')
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"]
                 if f["code"] == CODES["foreach-written-data-changed"]]
    assert finding["new"]["line"] == line_of(new, "return batch")
    assert [r["line"] for r in finding["related"]] == [line_of(new, ".foreachBatch(save)")]


def test_the_function_of_the_branch_not_read_is_where_the_condition_points(
        tmp_path: Path, capsys) -> None:
    old, new = BRANCHES.format(mode="append"), BRANCHES.format(mode="overwrite")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["unresolved-code"]]
    assert finding["new"]["line"] == line_of(new, '"overwrite"')
    assert finding["old"]["line"] == line_of(old, '"append"')
    assert [r["line"] for r in finding["related"]] == [line_of(new, "if sys.argv")]


def placed(old: str, new: str, marker: str, old_marker: str | None = None) -> Finding:
    """The one finding at the line holding `marker` (`old_marker` in the old text), as
    at_change places it."""
    found = Finding("UN01", "unresolved-code", "review", "", "", "", "q",
                    Loc("old.py", line_of(old, old_marker or marker), 0),
                    Loc("new.py", line_of(new, marker), 0))
    [moved] = at_change((found,), old, "old.py", new, "new.py")
    return moved


def test_a_changed_branch_is_where_its_condition_points() -> None:
    old = BRANCHES.format(mode="append")
    new = old.replace('option("path", "/t/e")', 'option("path", "/t/e2")')
    moved = placed(old, new, "if sys.argv")
    assert moved.new is not None and moved.new.line == line_of(new, '"/t/e2"')
    assert moved.related == (Loc("new.py", line_of(new, "if sys.argv"), 0),)


def test_two_changed_functions_the_line_names_leave_the_finding_there() -> None:
    old = '''def save(batch, epoch):
    batch.write.mode("append").parquet("/t/a")


def audit(batch, epoch):
    batch.write.mode("append").parquet("/t/b")


df.writeStream.foreachBatch(lambda b, e: (save(b, e), audit(b, e))).start()
'''
    new = old.replace('"/t/a"', '"/t/a2"').replace('"/t/b"', '"/t/b2"')
    assert placed(old, new, "foreachBatch").related == ()
    one = old.replace('"/t/a"', '"/t/a2"')
    moved = placed(old, one, "foreachBatch")
    assert moved.new is not None and moved.new.line == line_of(one, '"/t/a2"')


def test_a_function_of_the_same_name_in_another_function_is_not_the_one() -> None:
    old = '''def first(df):
    def save(batch, epoch):
        batch.write.parquet("/t/a")
    return df.writeStream.foreachBatch(save).start()


def second(df):
    def save(batch, epoch):
        batch.write.parquet("/t/b")
    return df.writeStream.foreachBatch(save).start()
'''
    new = old.replace('"/t/b"', '"/t/b2"')
    assert placed(old, new, "return df.writeStream").related == ()  # in `first`
    at = max(n for n, line in enumerate(new.splitlines(), 1) if "return df.writeStream" in line)
    found = Finding("UN01", "unresolved-code", "review", "", "", "", "q",
                    Loc("old.py", at, 0), Loc("new.py", at, 0))
    [second] = at_change((found,), old, "old.py", new, "new.py")
    assert second.new is not None and second.new.line == line_of(new, '"/t/b2"')


def test_a_respaced_line_is_not_the_change() -> None:
    new = '''def upsert(batch, epoch):
    batch.sparkSession.sql(f"""
      MERGE INTO t USING s
      ON
        t.id = s.id AND t.live
    """)


df.writeStream.foreachBatch(upsert).start()
'''
    old = new.replace("ON\n", "ON \n").replace(" AND t.live", "")  # `ON ` lost its space
    moved = placed(old, new, "foreachBatch")
    assert moved.new is not None and moved.new.line == line_of(new, "AND t.live")


def test_a_statement_that_lost_a_line_is_its_own_change() -> None:
    old = '''def make_spark():
    return SparkSession.builder.appName("{name}").getOrCreate()


spark = make_spark()
events = (spark.readStream.format("kafka")
          .option("startingOffsets", "latest")
          .option("subscribe", "orders")
          .load())
'''
    # the session's function changed too, but the finding is about the removed option
    new = old.format(name="orders_v2").replace('          .option("startingOffsets", "latest")\n',
                                                "")
    moved = placed(old.format(name="orders"), new, "events = (", "startingOffsets")
    assert moved.related == ()
    # with the option kept, the changed function the statement's session comes from is it
    kept = old.format(name="orders_v2")
    moved = placed(old.format(name="orders"), kept, "events = (")
    assert moved.new is not None and moved.new.line == line_of(kept, "orders_v2")
