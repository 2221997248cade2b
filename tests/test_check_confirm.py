"""`streamlint check --base REF --confirm` on real Spark: each changed job restarted from its
own version's checkpoint, each side running its own version's modules (the base exported from
git, never checked out over the working tree)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main

JOB = '''"""Revenue per customer; the aggregation lives in the team's helper module."""
from pyspark.sql import SparkSession

from mylib.transforms import revenue

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema("customer STRING, amount LONG").json("/landing/orders")
(
    revenue(orders).writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/revenue").toTable("gold.revenue")
)
'''
HELPER = '''from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def revenue(orders: DataFrame) -> DataFrame:
    return orders.groupBy("customer").agg(F.sum("amount").alias("revenue"))
'''


@pytest.mark.spark
def test_a_changed_helper_is_confirmed_from_each_ref(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """sum -> max in the helper module, job file untouched: the base version's helper runs
    for the old side (exported from git), the working tree's for the new one; Spark restarts
    and the rows differ (tests/spark_cases/agg_sum_to_max). Nothing in the repository is
    written: `git status` is the same before and after."""
    repo = Repo(tmp_path / "repo")
    repo.put("jobs/revenue.py", JOB)
    repo.put("jobs/mylib/__init__.py", "")
    repo.put("jobs/mylib/transforms.py", HELPER)
    repo.commit("revenue job")
    repo.edit("jobs/mylib/transforms.py", 'F.sum("amount")', 'F.max("amount")')
    status = repo.git("status", "--porcelain", "--untracked-files=all")
    monkeypatch.chdir(repo.path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--base", "HEAD", "--confirm", "--format", "json",
                     "--no-progress"])
    data = json.loads(out.getvalue())
    (confirmed,) = data["confirmations"]
    assert confirmed["path"] == "jobs/revenue.py"
    (query,) = confirmed["queries"]
    assert query["confirmation"]["outcome"] == "results-differ", query["confirmation"]
    assert (code, data["verdict"]) == (1, "incompatible")
    assert repo.git("status", "--porcelain", "--untracked-files=all") == status


@pytest.mark.spark
def test_confirm_reports_in_every_format(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """sum -> max in the job: Spark restarts and the rows differ; each format carries the
    confirmation (SARIF: the run's properties and a notification; GitHub: an annotation
    titled with it; markdown: its section) and the stricter verdict."""
    repo = Repo(tmp_path / "repo")
    repo.put("jobs/revenue.py", JOB)
    repo.put("jobs/mylib/__init__.py", "")
    repo.put("jobs/mylib/transforms.py", HELPER)
    repo.commit("revenue job")
    repo.edit("jobs/mylib/transforms.py", 'F.sum("amount")', 'F.max("amount")')
    monkeypatch.chdir(repo.path)
    outputs = {}
    for fmt in ("sarif", "github", "markdown", "text"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["check", "--base", "HEAD", "--confirm", "--format", fmt,
                         "--no-progress"])
        assert code == 1, (fmt, out.getvalue()[-500:])
        outputs[fmt] = out.getvalue()
    run = json.loads(outputs["sarif"])["runs"][0]
    assert run["properties"]["verdict"] == "incompatible"
    (confirmed,) = run["properties"]["confirmation"]["confirmations"]
    assert confirmed["path"] == "jobs/revenue.py"
    assert any("jobs/revenue.py: query" in n["message"]["text"]
               for n in run["invocations"][0]["toolExecutionNotifications"])
    assert "title=Spark " in outputs["github"] and "jobs/revenue.py: query" in outputs["github"]
    assert "**Spark " in outputs["markdown"] and "incompatible" in outputs["markdown"]
    assert "jobs/revenue.py:\n\nSpark " in outputs["text"]
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo.path, capture_output=True,
                          text=True, check=True).stdout.strip() == "M jobs/mylib/transforms.py"


def test_a_job_spark_did_not_run_keeps_its_static_verdict_in_every_format() -> None:
    """With no changed job confirmed (added, deleted, a query on one side only), the
    pull-request formats showed Spark's empty "compatible" as the headline over a static
    incompatible (found in review)."""
    from streamlint.diff import diff_jobs
    from streamlint.extract import extract_text
    from streamlint.report import render_result
    from streamlint.report.result import Result
    from streamlint.spark.report import as_check_result

    job = ('df = spark.readStream.format("rate").load()\n'
           'df.groupBy({keys}).count().writeStream.outputMode("update")'
           '.option("checkpointLocation", "/chk/q").format("console").start()\n')
    report = diff_jobs(extract_text(job.format(keys='"value"'), "job.py"),
                       extract_text(job.format(keys='"value", "timestamp"'), "job.py"), "4.0")
    assert report.verdict == "incompatible"
    result = Result((report,), confirmation=as_check_result([], [report.verdict]))
    assert result.verdict == "incompatible"
    assert "streamlint: incompatible" in render_result("markdown", result)
    assert "streamlint: incompatible" in render_result("github", result)
    sarif = json.loads(render_result("sarif", result))
    assert sarif["runs"][0]["properties"]["verdict"] == "incompatible"
    assert "no changed job could be run on Spark" in render_result("text", result)
