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
