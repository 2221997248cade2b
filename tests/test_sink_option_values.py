"""A sink option whose value is known only at run time is a question (UN02), except Delta's
`mergeSchema`, which SK09 judges whatever its values (rules/options.toml `sink_value_free`)."""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

JOB = """
def write(df, merge, app):
    writer = df.writeStream.format("delta").option("checkpointLocation", "/chk/t")
    writer = writer.option("mergeSchema", "true" if merge else "false")
    writer = writer.option("txnAppId", app or "etl")
    return writer.start("/t/events")

write(spark.readStream.table("bronze.events"), merge, app)
"""


def findings(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return [(f.code, f.verdict) for f in report.findings]


def test_merge_schema_from_a_run_time_value_to_true_is_compatible() -> None:
    new = JOB.replace('"true" if merge else "false"', '"true"')
    assert findings(JOB, new) == [("SK09", "compatible")]


def test_another_option_from_a_run_time_value_is_still_a_question() -> None:
    new = JOB.replace('app or "etl"', '"etl"')
    assert findings(JOB, new) == [("UN02", "review")]
