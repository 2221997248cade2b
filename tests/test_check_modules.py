"""`streamlint check` when only a module a job imports changed, in a real git repository.

Expected codes are looked up by the rule's name, expected lines found in the helper's text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo
from test_modules import IO, JOB, TRANSFORMS, line_of

from streamlint.cli import main
from streamlint.rulebook.book import load_rules


def code(name: str) -> str:
    return next(rule.code for rule in load_rules() if rule.name == name)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    repo.put("jobs/__init__.py", "")
    repo.put("jobs/job.py", JOB)
    repo.put("jobs/io.py", IO)
    repo.put("jobs/transforms.py", TRANSFORMS)
    repo.put("lib/unrelated.py", "def helper(x):\n    return x + 1\n")
    repo.commit("jobs as they run today")
    monkeypatch.chdir(tmp_path)
    return repo


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


GROUPED = TRANSFORMS.replace('groupBy("customer_id")', 'groupBy("customer_id", "region")')


def test_only_the_helper_changed_in_the_working_tree(repo: Repo, capsys) -> None:
    repo.edit("jobs/transforms.py", 'groupBy("customer_id")', 'groupBy("customer_id", "region")')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1 and data["verdict"] == "incompatible"
    (job,) = data["files"]
    assert (job["path"], job["status"]) == ("jobs/job.py", "helper-changed")
    finding = next(f for f in job["findings"] if f["code"] == code("grouping-keys-changed"))
    assert finding["new"]["path"] == "jobs/transforms.py"
    assert finding["new"]["line"] == line_of(GROUPED, "groupBy")
    assert finding["old"]["path"] == "HEAD:jobs/transforms.py"


def test_only_the_helper_changed_between_two_commits(repo: Repo, capsys) -> None:
    repo.edit("jobs/transforms.py", 'groupBy("customer_id")', 'groupBy("customer_id", "region")')
    repo.commit("a grouping key in the helper")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1
    assert [(f["path"], f["status"], f["verdict"]) for f in data["files"]] == [
        ("jobs/job.py", "helper-changed", "incompatible")]


def test_text_report_names_the_changed_module(repo: Repo, capsys) -> None:
    repo.edit("jobs/transforms.py", 'groupBy("customer_id")', 'groupBy("customer_id", "region")')
    assert main(["check", "--base", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert "jobs/job.py: unchanged, but a module it imports changed (jobs/transforms.py)" in out
    assert f"jobs/transforms.py:{line_of(GROUPED, 'groupBy')}:" in out


def test_transitive_helper_change(repo: Repo, capsys) -> None:
    # job -> transforms -> keys: the key list lives two imports away.
    repo.put("jobs/keys.py", 'KEYS = ["customer_id"]\n')
    repo.put("jobs/transforms.py", TRANSFORMS.replace(
        "from pyspark.sql import functions as F\n",
        "from pyspark.sql import functions as F\nfrom jobs.keys import KEYS\n").replace(
        'groupBy("customer_id")', "groupBy(*KEYS)"))
    repo.commit("keys in their own module")
    repo.put("jobs/keys.py", 'KEYS = ["customer_id", "region"]\n')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    (job,) = data["files"]
    assert job["status"] == "helper-changed"
    assert code("grouping-keys-changed") in [f["code"] for f in job["findings"]]


def test_harmless_helper_change_is_compatible(repo: Repo, capsys) -> None:
    repo.edit("jobs/io.py", 'TOPIC = "orders"', 'TOPIC = "orders"  # the topic of record')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0
    # io.py mentions streaming itself (its __main__ block starts a query), so it is also
    # checked as a job of its own.
    assert [(f["path"], f["status"], f["findings"]) for f in data["files"]] == [
        ("jobs/io.py", "modified", []), ("jobs/job.py", "helper-changed", [])]


def test_unrelated_module_change_rejudges_nothing(repo: Repo, capsys) -> None:
    repo.edit("lib/unrelated.py", "x + 1", "x + 2")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0 and data["files"] == []


def test_changed_job_reads_its_helpers_from_each_ref(repo: Repo, capsys) -> None:
    # Job and helper both changed: the old job must be read with the old helper.
    repo.edit("jobs/transforms.py", 'groupBy("customer_id")', 'groupBy("customer_id", "region")')
    repo.edit("jobs/job.py", '"totals").start', '"totals").queryName("totals").start')
    status, data = run_json(capsys, "--base", "HEAD")
    (job,) = data["files"]
    assert job["status"] == "modified"
    assert code("grouping-keys-changed") in [f["code"] for f in job["findings"]]


def test_configured_source_root(repo: Repo, capsys) -> None:
    repo.put("libs/py/platform_io.py", IO)
    repo.put("jobs/platform_job.py", JOB.replace("from jobs.io import", "from platform_io import"))
    repo.put("pyproject.toml", '[tool.streamlint]\nsource-roots = [".", "libs/py"]\n')
    repo.commit("a job on the platform library")
    repo.edit("libs/py/platform_io.py", '"orders"', '"orders_v2"')
    status, data = run_json(capsys, "--base", "HEAD")
    files = {f["path"]: f for f in data["files"]}
    assert files["jobs/platform_job.py"]["status"] == "helper-changed"
    assert "jobs/job.py" not in files  # it imports jobs.io, which did not change
    assert code("source-identity-changed") in [
        f["code"] for f in files["jobs/platform_job.py"]["findings"]]
    assert status == 1


def test_paths_select_a_job_through_its_changed_module(repo: Repo, capsys) -> None:
    # The pre-commit hook passes the staged files: a staged helper re-judges its jobs.
    repo.edit("jobs/transforms.py", 'groupBy("customer_id")', 'groupBy("customer_id", "region")')
    status, data = run_json(capsys, "--base", "HEAD", "jobs/transforms.py")
    assert status == 1
    assert [(f["path"], f["status"]) for f in data["files"]] == [("jobs/job.py", "helper-changed")]
    status, data = run_json(capsys, "--base", "HEAD", "lib")
    assert status == 0 and data["files"] == []


NOTEBOOK = '''# Databricks notebook source
# MAGIC %run ./Includes/config

# COMMAND ----------

df = spark.readStream.format("kafka").option("subscribe", "orders").load()
df.writeStream.option("checkpointLocation", f"{CHECKPOINT_ROOT}/orders").toTable("bronze.orders")
'''
CONFIG = '''# Databricks notebook source
CHECKPOINT_ROOT = "/mnt/lake/_checkpoints"
'''


def test_a_notebook_whose_run_target_changed_is_judged(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    repo = Repo(tmp_path)
    repo.put("notebooks/ingest.py", NOTEBOOK)
    repo.put("notebooks/Includes/config.py", CONFIG)
    repo.commit("a notebook and the config it %runs")
    monkeypatch.chdir(tmp_path)
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0 and data["files"] == []
    repo.edit("notebooks/Includes/config.py", "/_checkpoints", "/_checkpoints_v2")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    (job,) = data["files"]
    assert (job["path"], job["status"]) == ("notebooks/ingest.py", "helper-changed")
    assert [f["code"] for f in job["findings"]] == [code("checkpoint-location-changed")]


def test_a_comment_in_the_helper_accepts_its_finding_in_check(repo: Repo, capsys) -> None:
    grouping = code("grouping-keys-changed")
    line = 'alias("total"))'
    repo.edit("jobs/transforms.py", 'groupBy("customer_id")', 'groupBy("customer_id", "region")')
    repo.edit("jobs/transforms.py", line, f"{line}  # streamlint: ignore[{grouping}] OPS-9 reset")
    repo.commit("a grouping key in the helper, accepted there")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    (job,) = data["files"]
    assert grouping not in {f["code"] for f in job["findings"]}
    assert job["suppressed"] == [grouping]
