"""A guard clause (`if not topic: return`) ends a function early with no DataFrame and no
query: the code after it is where the query is, so it is read (as uncertain: only the run
decides whether it happens), not dropped. An early return that hands back a DataFrame is a
run-time choice as before.
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

GUARDED = """
import sys

def run(spark, topic):
    if not topic:
        print("no topic")
        return None
    df = spark.readStream.format("kafka").option("subscribe", topic).load()
    return (df.groupBy("key").count().writeStream.outputMode("update").format("console")
            .option("checkpointLocation", "/chk/a").start())

run(spark, sys.argv[1])
"""


def codes(old: str, new: str) -> list[str]:
    assert old != new
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return sorted(f.code for f in report.findings)


def test_the_query_after_a_guard_clause_is_read() -> None:
    (query,) = extract_text(GUARDED, "job.py").queries
    assert query.sink.checkpoint == "/chk/a"


def test_a_changed_grouping_key_after_a_guard_clause_is_incompatible() -> None:
    new = GUARDED.replace('groupBy("key")', 'groupBy("key", "value")')
    assert codes(GUARDED, new) == ["AG01", "PR06"]


def test_a_guard_that_returns_a_plain_value_or_raises_nothing_else() -> None:
    job = GUARDED.replace("return None", 'return "skipped"')
    (query,) = extract_text(job, "job.py").queries
    assert query.sink.checkpoint == "/chk/a"


def test_a_guard_in_a_method_before_the_query() -> None:
    job = """
class Job:
    def __init__(self, spark, table):
        self.spark, self.table = spark, table

    def start(self):
        if self.table is None:
            return
        df = self.spark.readStream.table(self.table)
        df.dropDuplicates(["id"]).writeStream.option("checkpointLocation", "/chk/j").toTable("out")

Job(spark, "events").start()
"""
    new = job.replace('dropDuplicates(["id"])', 'dropDuplicates(["id", "ts"])')
    assert codes(job, new) == ["DD01"]


def test_a_removal_after_a_guard_is_not_certain() -> None:
    # Only the run decides whether the code after the guard runs: a checkpoint removed there
    # is not taken as certainly removed before the second query on it.
    body = """
import sys

def show(spark, topic):
    {guard}df = spark.readStream.format("kafka").option("subscribe", topic).load()
    df.writeStream.format("console").option("checkpointLocation", "/chk/a").start().stop()
    dbutils.fs.rm("/chk/a", True)
    df.writeStream.format("console").option("checkpointLocation", "/chk/a").start()

show(spark, sys.argv[1])
"""
    unguarded = extract_text(body.format(guard=""), "job.py").queries
    guarded = extract_text(body.format(guard="if not topic:\n        return\n    "),
                           "job.py").queries
    assert [q.sink.cleared for q in unguarded] == [0, 1]
    assert [q.sink.cleared for q in guarded] == [0, 0]


def test_an_early_return_of_a_dataframe_is_still_a_choice() -> None:
    job = """
import sys

def build(spark):
    df = spark.readStream.format("kafka").option("subscribe", "a").load()
    if sys.argv[1] == "raw":
        return df
    return df.groupBy("key").count()

(build(spark).writeStream.outputMode("update").format("console")
    .option("checkpointLocation", "/chk/b").start())
"""
    (query,) = extract_text(job, "job.py").queries
    assert any("run-time condition" in text for text, _ in query.unresolved)


def test_a_guard_that_sets_an_attribute_before_returning_is_not_read_past() -> None:
    # `self.df` set in the guard's branch would leak into the code after it, which only runs
    # when the guard does not: that code stays unread (UN03, review), never judged wrongly.
    job = """
import sys
class J:
    def run(self):
        self.df = spark.readStream.format("kafka").option("subscribe", "a").load()
        if sys.argv[1] == "x":
            self.df = self.df.dropDuplicates(["id"])
            return None
        self.df.writeStream.format("console").option("checkpointLocation", "/chk/j").start()
J().run()
"""
    new = job.replace('dropDuplicates(["id"])', 'dropDuplicates(["id", "ts"])')
    assert extract_text(job, "job.py").queries == ()
    assert codes(job, new) == ["UN03"]


def test_a_recursive_base_case_is_not_read_past() -> None:
    # Reading past a recursive function's base case recursed again at every level: with two
    # calls per level, a real repository's walk over its modules ran out of steps (an input
    # error instead of an answer). The recursive call's guard ends it, as before.
    job = """
import sys

def walk(node, depth):
    if node is None:
        return None
    walk(node.left, depth + 1)
    walk(node.right, depth + 1)
    walk(node.next, depth + 1)
    return node

walk(sys.argv[1], 0)
df = spark.readStream.format("kafka").option("subscribe", "a").load()
df.writeStream.format("console").option("checkpointLocation", "/chk/w").start()
"""
    (query,) = extract_text(job, "job.py").queries
    assert query.sink.checkpoint == "/chk/w"
