"""A query only the new version has, which Spark refuses to start whatever its checkpoint
(a file sink in update or complete mode, a continuous trigger over state): the deployment fails,
so it is QY17 as for a changed query, not "a new query, compatible". What Spark does is
measured in tests/test_refused_queries.py (a fresh checkpoint there too)."""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.report.remedy import with_remedies

OLD = """
df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.format("console").option("checkpointLocation", "/chk/a").start()
"""


def report_for(added: str):  # type: ignore[no-untyped-def]
    new = OLD + added
    return diff_jobs(extract_text(OLD, "old.py"), extract_text(new, "new.py"))


def test_a_new_file_sink_query_in_update_mode_is_refused() -> None:
    report = report_for('(df.groupBy("key").count().writeStream.outputMode("update")'
                        '.format("json").option("path", "/t/o")'
                        '.option("checkpointLocation", "/chk/b").start())\n')
    assert report.verdict == "incompatible"
    assert sorted(f.code for f in report.findings) == ["QY03", "QY17"]


def test_a_new_continuous_query_with_a_deduplication_is_refused() -> None:
    report = report_for('(df.dropDuplicates(["key"]).writeStream.format("console")'
                        '.trigger(continuous="1 second")'
                        '.option("checkpointLocation", "/chk/b").start())\n')
    assert "QY17" in {f.code for f in report.findings}


def test_a_new_query_spark_runs_is_only_added() -> None:
    report = report_for('(df.groupBy("key").count().writeStream.outputMode("update")'
                        '.format("console").option("checkpointLocation", "/chk/b").start())\n')
    assert report.verdict == "compatible"
    assert [f.code for f in report.findings] == ["QY03"]


def test_no_new_checkpoint_is_offered_for_a_refused_query() -> None:
    report = report_for('(df.groupBy("key").count().writeStream.outputMode("complete")'
                        '.format("parquet").option("path", "/t/o")'
                        '.option("checkpointLocation", "/chk/b").start())\n')
    (refused,) = [f for f in with_remedies(report.findings, report) if f.code == "QY17"]
    assert refused.next == ""
    assert "A new checkpoint does not help" in refused.fix
