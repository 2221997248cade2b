"""Queries started under conditions no run meets together are alternatives (issue 26): two
blocks `if mode == "A": ...start()` and `if mode == "C": ...start()` on one checkpoint are
not two queries on it, and each is compared with its old self."""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

HEAD = '''import sys
mode = sys.argv[1]
df = spark.readStream.format("kafka").option("subscribe", "orders").load()
'''
A = '''if mode == "A":
    df.writeStream.format("delta").option("checkpointLocation", "/chk/o").start("/t/a")
'''
C = '''if mode == "C":
    (df.groupBy("key").count().writeStream.format("delta").outputMode("complete")
       .option("checkpointLocation", "/chk/o").start("/t/c"))
'''


def findings(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "job.py"), extract_text(new, "job.py"))
    return [(f.code, f.verdict) for f in report.findings]


def test_separate_ifs_on_different_values_share_a_checkpoint_legitimately() -> None:
    job = HEAD + A + C
    assert findings(job, job) == []
    assert findings(HEAD + A, job) == [("QY03", "compatible")]


def test_an_if_and_its_else_are_alternatives() -> None:
    job = HEAD + A + C.replace('if mode == "C":', "else:")
    assert findings(job, job) == []


def test_each_alternative_is_compared_with_its_old_self() -> None:
    old, new = HEAD + C + A, HEAD + C.replace('"key"', '"key", "topic"') + A
    assert ("AG01", "incompatible") in findings(old, new)
    # reordered blocks still pair by their conditions
    assert findings(HEAD + A + C, HEAD + C + A) == []


def test_conditions_both_runs_can_meet_still_share_a_checkpoint() -> None:
    both = HEAD + A + C.replace('mode == "C"', 'mode == "A"')
    assert ("QY11", "incompatible") in findings(HEAD + A, both)
    unconditional = HEAD + A + C.replace('if mode == "C":\n', 'if True:\n')
    assert ("QY11", "incompatible") in findings(HEAD + A, unconditional)
