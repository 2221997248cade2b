"""A function, lambda, class or object chosen at run time (`agg = by_key if mode == "k" else
by_value`) is each of them when called: the first one's DataFrame is followed and the others'
noted, so a change in a function the run may choose is a finding. It used to keep the first
silently: a changed grouping key in the second read compatible.
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

CHOSEN = """
import sys

def by_key(df):
    return df.groupBy("key").count()

def by_value(df):
    return df.groupBy("value").count()

agg = by_key if sys.argv[1] == "k" else by_value
df = spark.readStream.format("kafka").option("subscribe", "a").load()
(agg(df).writeStream.outputMode("update").format("console")
    .option("checkpointLocation", "/chk/f").start())
"""

OBJECTS = """
import sys

class ByKey:
    def apply(self, df):
        return df.groupBy("key").count()

class ByValue:
    def apply(self, df):
        return df.groupBy("value").count()

if sys.argv[1] == "k":
    step = ByKey()
else:
    step = ByValue()
df = spark.readStream.format("kafka").option("subscribe", "a").load()
(step.apply(df).writeStream.outputMode("update").format("console")
    .option("checkpointLocation", "/chk/o").start())
"""

BATCH = """
import sys

def upsert(batch, batch_id):
    batch.write.mode("append").saveAsTable("t")

def overwrite(batch, batch_id):
    batch.write.mode("overwrite").saveAsTable("t")

sink = upsert if sys.argv[1] == "u" else overwrite
df = spark.readStream.format("kafka").option("subscribe", "a").load()
df.writeStream.foreachBatch(sink).option("checkpointLocation", "/chk/b").start()
"""


def codes(old: str, new: str) -> list[str]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return sorted(f.code for f in report.findings)


def test_a_change_in_the_function_not_followed_is_asked() -> None:
    new = CHOSEN.replace('groupBy("value")', 'groupBy("value", "key")')
    # One note that reads the same on both sides but names other code: one finding.
    assert codes(CHOSEN, new) == ["UN01"]


def test_a_change_in_the_function_followed_is_judged() -> None:
    new = CHOSEN.replace('groupBy("key")', 'groupBy("key", "value")')
    assert "AG01" in codes(CHOSEN, new)


def test_the_same_functions_are_no_finding() -> None:
    assert codes(CHOSEN, CHOSEN + "\n") == []


def test_a_method_of_an_object_chosen_at_run_time() -> None:
    new = OBJECTS.replace('groupBy("value")', 'groupBy("value", "key")')
    assert codes(OBJECTS, new) == ["UN01"]
    (query,) = extract_text(OBJECTS, "job.py").queries
    assert query.sink.checkpoint == "/chk/o"


def test_a_batch_function_chosen_at_run_time_counts_with_its_code() -> None:
    (query,) = extract_text(BATCH, "job.py").queries
    assert query.sink.foreach is not None
    assert query.sink.foreach.function == "upsert or overwrite"
    new = BATCH.replace('mode("overwrite")', 'mode("append")')
    assert codes(BATCH, new) == ["SK12"]  # what the second one writes changed
    logged = BATCH.replace('mode("overwrite")', 'mode("overwrite").option("x", "y")')
    assert codes(BATCH, logged) == ["SK07"]


def test_queries_started_by_each_chosen_function_are_one_query() -> None:
    job = """
import sys

def to_console(df):
    df.writeStream.format("console").option("checkpointLocation", "/chk/c").start()

def to_memory(df):
    df.writeStream.format("memory").queryName("m").option("checkpointLocation", "/chk/c").start()

write = to_console if sys.argv[1] == "c" else to_memory
write(spark.readStream.format("rate").load())
"""
    assert len(extract_text(job, "job.py").queries) == 1
