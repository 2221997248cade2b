"""Run-time choices between branches (`extract/symbolic.py`): every branch counts.

A function whose branches return different things returns one choice among all of them (an
`elif` chain's later branches, and what the function does after an early return, included);
the branch streamlint does not follow is compared between versions as a query of its own,
and only where it cannot be is it a UN01 note.
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

TRIGGERS = """
def with_trigger(writer, kind):
    if kind == "available":
        return writer.trigger(availableNow=True)
    elif kind == "interval":
        return writer.trigger(processingTime="1 minute")
    else:
        raise ValueError(kind)

def run(spark, kind):
    df = spark.readStream.format("kafka").option("subscribe", "t").load()
    writer = (df.groupBy("key").count().writeStream.format("delta").outputMode("update")
              .option("checkpointLocation", "/chk/counts"))
    with_trigger(writer, kind).start("/t/counts")

run(spark, kind)
"""

EARLY = """
def with_trigger(writer, kind):
    if kind == "available":
        return writer.trigger(availableNow=True)
    return writer.trigger(processingTime="1 minute")
""" + TRIGGERS[TRIGGERS.index("\ndef run"):]


def verdict(old: str, new: str) -> str:
    return diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py")).verdict


def test_a_later_branch_of_an_elif_chain_counts() -> None:
    new = TRIGGERS.replace('processingTime="1 minute"', 'continuous="1 second"')
    assert verdict(TRIGGERS, new) != "compatible"


def test_what_follows_an_early_return_counts() -> None:
    new = EARLY.replace('processingTime="1 minute"', 'continuous="1 second"')
    assert verdict(EARLY, new) != "compatible"


def test_the_first_returning_branch_is_the_one_followed() -> None:
    for job in (TRIGGERS, EARLY):
        (query,) = extract_text(job, "job.py").queries
        assert query.sink.trigger == ("availableNow", True)


def test_a_query_after_an_early_return_is_read() -> None:
    job = """
def start(spark, enabled):
    if not enabled:
        return None
    df = spark.readStream.format("kafka").option("subscribe", "t").load()
    return df.writeStream.format("delta").option("checkpointLocation", "/chk/t").start("/t/t")

start(spark, enabled)
"""
    (query,) = extract_text(job, "job.py").queries
    assert query.sink.checkpoint == "/chk/t"


# -- the branch not followed, compared as a query of its own --------------------------------

def report(old: str, new: str) -> list[tuple[str, str, str]]:
    found = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py")).findings
    return [(f.code, f.verdict, f.message) for f in found]


WRITER_CHOICE = """
def configure(writer, fmt):
    if fmt == "csv":
        writer.format("csv").option("header", "true")
    elif fmt in ("json", "parquet"):
        writer.format(fmt)
    return writer

df = spark.readStream.format("kafka").option("subscribe", "t").load()
df = df.selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)")
writer = configure(df.writeStream.option("checkpointLocation", "/chk/out"), fmt)
writer.start("/out")
"""


def test_a_change_upstream_of_a_writer_choice_is_judged_once() -> None:
    new = WRITER_CHOICE.replace('.load()', '.option("maxOffsetsPerTrigger", 1000).load()')
    assert [(c, v) for c, v, _ in report(WRITER_CHOICE, new)] == [("SO05", "compatible")]


def test_a_change_in_the_writer_branch_not_followed_is_reported_there() -> None:
    new = WRITER_CHOICE.replace("writer.format(fmt)", 'writer.format(fmt).partitionBy("key")')
    found = report(WRITER_CHOICE, new)
    assert [(c, v) for c, v, _ in found] == [("SK10", "review")]
    assert "in the other branch of `fmt == \"csv\"` (line 3)" in found[0][2]


def test_a_stateful_operator_in_the_dataframe_branch_not_followed_is_incompatible() -> None:
    old = """
df = spark.readStream.format("kafka").option("subscribe", "t").load()
if dedup:
    df = df.select("key", "value")
else:
    df = df.select("key", "value").where("value IS NOT NULL")
df.writeStream.format("delta").option("checkpointLocation", "/chk/d").start("/t/d")
"""
    new = old.replace('.where("value IS NOT NULL")', '.dropDuplicates(["key"])')
    found = report(old, new)
    assert ("ST01", "incompatible",
            "a stateful operator was added: dropDuplicates(key) "
            "(in the other branch of `dedup` (line 3))") in found
    harmless = old.replace('.load()', '.option("maxOffsetsPerTrigger", 10).load()')
    assert [(c, v) for c, v, _ in report(old, harmless)] == [("SO05", "compatible")]


def test_a_choice_feeding_a_stateful_operator_keeps_its_note() -> None:
    """The grouping after the choice was computed from the followed branch's columns: the
    other branch's query is not rebuilt, and its change is a UN01 question."""
    old = """
from pyspark.sql import functions as F
df = spark.readStream.format("kafka").option("subscribe", "t").load()
if by_topic:
    df = df.withColumn("k", F.col("topic"))
else:
    df = df.withColumn("k", F.col("key"))
(df.groupBy("k").count().writeStream.format("delta").outputMode("update")
   .option("checkpointLocation", "/chk/g").start("/t/g"))
"""
    new = old.replace('F.col("key")', 'F.col("partition")')
    assert ("UN01", "review") in [(c, v) for c, v, _ in report(old, new)]


def test_started_branches_compare_the_other_query() -> None:
    old = """
from pyspark.sql import functions as F
def save(data, keys):
    if not keys:
        q = data.writeStream.format("delta").option("checkpointLocation", "/chk/s").toTable("t")
    else:
        q = (data.writeStream.format("delta").option("checkpointLocation", "/chk/s")
             .partitionBy(keys).toTable("t"))
    return q

save(spark.readStream.table("bronze").withColumn("limit", F.lit(3)), keys)
"""
    harmless = old.replace("F.lit(3)", "F.lit(5)")
    assert [(c, v) for c, v, _ in report(old, harmless)] == [("PR02", "compatible")]
    moved = old.replace('"/chk/s")\n             .partitionBy',
                        '"/chk/s2")\n             .partitionBy')
    found = report(old, moved)
    assert [(c, v) for c, v, _ in found] == [("QY01", "incompatible")]
    assert "in the other branch of `not keys`" in found[0][2]


def test_a_combination_of_two_branches_not_followed_is_compared() -> None:
    """The aggregation is only in one branch of the first choice and the output mode change
    only in the other branch of the second: only their combination runs both."""
    old = """
def build(df, agg, mode):
    if agg:
        out = df.select("key")
    else:
        out = df.groupBy("key").count()
    writer = out.writeStream.format("delta").option("checkpointLocation", "/chk/c")
    if mode:
        writer = writer.outputMode("append")
    else:
        writer = writer.outputMode("update")
    return writer.start("/t/c")

build(spark.readStream.format("kafka").option("subscribe", "t").load(), agg, mode)
"""
    new = old.replace('writer.outputMode("update")', 'writer.outputMode("complete")')
    found = report(old, new)
    assert ("QY07", "review", "the output mode of a stateful query changed from 'update' to "
            "'complete' (in the other branch of `agg` (line 3); in the other branch of `mode` "
            "(line 8))") in found
    assert verdict(old, new) == "review"


def test_a_changed_condition_keeps_the_note() -> None:
    new = WRITER_CHOICE.replace('fmt == "csv"', 'fmt.lower() == "csv"')
    assert ("UN01", "review") in [(c, v) for c, v, _ in report(WRITER_CHOICE, new)]
