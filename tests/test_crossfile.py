"""`streamlint check` across files: a query moved to another job file, a checkpoint two job
files share, a checkpoint path that changes on every run. Real git repositories; expected
codes are looked up by the rule's name, never copied from the output."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"

HEADER = """from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.format("kafka").option("subscribe", "orders").load()
"""
COUNTS = """(orders.groupBy({keys}).count().writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/counts").start("/t/counts"))
"""
RAW = """(orders.writeStream.format("delta")
    .option("checkpointLocation", "/chk/raw").start("/t/raw"))
"""
# Another job, in its own words (so that git does not take a.py -> b.py for a rename).
OTHER_JOB = """import logging

from pyspark.sql import SparkSession

log = logging.getLogger("b")


def main() -> None:
    spark = SparkSession.builder.appName("b").getOrCreate()
    orders = spark.readStream.format("kafka").option("subscribe", "orders").load()
    log.info("starting")
{body}

if __name__ == "__main__":
    main()
"""


def code(name: str) -> str:
    return next(rule.code for rule in load_rules() if rule.name == name)


def indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.splitlines())


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    repo.put("jobs/a.py", HEADER + COUNTS.format(keys='"key"') + RAW)
    repo.put("jobs/c.py", HEADER.replace('"orders"', '"events"')
             + 'orders.writeStream.format("delta").option("checkpointLocation", '
               '"/chk/events").start("/t/events")\n')
    repo.put("lib/util.py", "def helper(x):\n    return x + 1\n")
    repo.commit("jobs as they run today")
    monkeypatch.chdir(tmp_path)
    return repo


def run(capsys: pytest.CaptureFixture[str], fmt: str, *args: str) -> tuple[int, str]:
    status = main(["check", "--base", "HEAD", *args, "--format", fmt])
    return status, capsys.readouterr().out


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status, out = run(capsys, "json", *args)
    return status, json.loads(out)


def findings(data: dict) -> list[dict]:
    return [dict(f, file=file["path"]) for file in data["files"] for f in file["findings"]]


def move_counts(repo: Repo, keys: str = '"key"') -> None:
    """The aggregation leaves jobs/a.py (which keeps its other query) for a new jobs/b.py."""
    repo.put("jobs/a.py", HEADER + RAW)
    repo.put("jobs/b.py", OTHER_JOB.format(body=indent(COUNTS.format(keys=keys))))


def test_query_moved_unchanged_is_compatible_and_reported_as_moved(repo: Repo, capsys) -> None:
    move_counts(repo)
    status, data = run_json(capsys)
    assert status == 0
    assert data["verdict"] == "compatible"
    got = findings(data)
    assert [f["code"] for f in got] == [code("query-moved")]
    [moved] = got
    assert moved["file"] == "jobs/b.py"
    assert moved["old"]["path"] == "HEAD:jobs/a.py" and moved["old"]["line"] == 5
    assert moved["new"]["path"] == "jobs/b.py"
    assert "HEAD:jobs/a.py:5" in moved["message"] and "jobs/b.py:" in moved["message"]
    # The query is one pair in b.py's report, with its old self; a.py lost nothing.
    b = next(f for f in data["files"] if f["path"] == "jobs/b.py")
    [pair] = b["queries"]
    assert pair["old"]["location"]["path"] == "HEAD:jobs/a.py"
    assert pair["new"]["location"]["path"] == "jobs/b.py"
    a = next(f for f in data["files"] if f["path"] == "jobs/a.py")
    assert [p["old"]["checkpoint"] for p in a["queries"]] == ["/chk/raw"]


def test_query_moved_with_its_grouping_key_changed_is_incompatible(repo: Repo, capsys) -> None:
    move_counts(repo, keys='"key", "region"')
    status, data = run_json(capsys)
    assert status == 1
    assert data["verdict"] == "incompatible"
    codes = [f["code"] for f in findings(data)]
    assert code("grouping-keys-changed") in codes
    assert code("query-moved") in codes
    assert code("query-added") not in codes and code("query-removed") not in codes


def test_moved_between_two_commits_and_the_old_file_deleted(repo: Repo, capsys) -> None:
    repo.put("jobs/c.py", (repo.path / "jobs/c.py").read_text() + COUNTS.replace(
        "orders.", "spark.readStream.format('kafka').option('subscribe', 'orders').load().")
        .format(keys='"key"'))
    (repo.path / "jobs/a.py").unlink()
    repo.put("jobs/b.py", OTHER_JOB.format(body=indent(RAW)))
    repo.commit("split a.py")
    status = main(["check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0, findings(data)
    moved = [f for f in findings(data) if f["code"] == code("query-moved")]
    assert sorted((f["file"], f["old"]["path"]) for f in moved) == [
        ("jobs/b.py", "HEAD~1:jobs/a.py"), ("jobs/c.py", "HEAD~1:jobs/a.py")]
    assert {f["code"] for f in findings(data)} == {code("query-moved")}
    statuses = {f["path"]: f["status"] for f in data["files"]}
    assert statuses == {"jobs/a.py": "deleted", "jobs/b.py": "added", "jobs/c.py": "modified"}


def test_a_move_out_of_a_file_does_not_pair_its_other_queries_by_position(repo: Repo,
                                                                          capsys) -> None:
    # a.py: counts moves to b.py, and a new query takes its place in a.py. Within a.py alone
    # the new query would be paired with the one that left (by position): a checkpoint change.
    repo.put("jobs/a.py", HEADER + RAW + RAW.replace("raw", "raw_copy"))
    repo.put("jobs/b.py", OTHER_JOB.format(body=indent(COUNTS.format(keys='"key"'))))
    status, data = run_json(capsys)
    codes = sorted(f["code"] for f in findings(data))
    assert codes == sorted([code("query-moved"), code("query-added")])
    assert status == 0


def test_new_job_reusing_another_jobs_checkpoint(repo: Repo, capsys) -> None:
    repo.put("jobs/d.py", HEADER + 'orders.selectExpr("value").writeStream.format("parquet")'
             '.option("checkpointLocation", "/chk/events/").start("/t/copy")\n')
    status, data = run_json(capsys)
    assert status == 1
    [shared] = [f for f in findings(data) if f["code"] == code("checkpoint-shared")]
    assert shared["file"] == "jobs/d.py" and shared["new"]["line"] == 5
    assert "jobs/c.py:5:" in shared["message"]  # the other location, named
    assert shared["verdict"] == "incompatible"
    # Not "a new query that starts from its startingOffsets": it takes over c.py's checkpoint.
    assert code("query-added") not in [f["code"] for f in findings(data)]


def test_the_same_query_copied_to_a_new_job_is_to_review(repo: Repo, capsys) -> None:
    repo.put("jobs/backfill.py", (repo.path / "jobs/c.py").read_text().replace(
        '.option("checkpointLocation"', '.trigger(availableNow=True).option("checkpointLocation"'))
    status, data = run_json(capsys)
    shared = [f for f in findings(data) if f["code"] == code("checkpoint-shared-by-one-query")]
    assert [f["file"] for f in shared] == ["jobs/backfill.py"]
    assert data["verdict"] == "review" and status == 0


def test_shared_checkpoint_read_from_a_ref_and_only_unknowns_are_not_compared(
        repo: Repo, capsys) -> None:
    repo.put("jobs/d.py", HEADER + 'import os\norders.writeStream.format("delta")'
             '.option("checkpointLocation", os.environ["CHK"]).start("/t/d")\n'
             'orders.writeStream.format("delta").option("checkpointLocation", "/chk/" + '
             '"events").start("/t/d2")\n')
    repo.commit("d")
    status = main(["check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    shared = [f for f in findings(data) if f["code"] == code("checkpoint-shared")]
    assert [(f["file"], f["new"]["line"]) for f in shared] == [("jobs/d.py", 7)]
    assert status == 1


def test_an_unchanged_job_that_cannot_be_read_does_not_stop_the_check(repo: Repo,
                                                                      capsys) -> None:
    repo.put("jobs/broken.py", "x = (\n# /chk/events writeStream\n")
    repo.commit("a broken file nobody runs")
    repo.put("jobs/d.py", HEADER + 'orders.writeStream.format("delta")'
             '.option("checkpointLocation", "/chk/d").start("/t/d")\n')
    status, data = run_json(capsys)
    assert status == 0 and data["errors"] == []
    assert [f["code"] for f in findings(data)] == [code("query-added")]


def test_timestamped_checkpoint_in_check(repo: Repo, capsys) -> None:
    repo.put("jobs/a.py", "from datetime import datetime\n" + HEADER
             + COUNTS.format(keys='"key"').replace(
                 '"/chk/counts"', 'f"/chk/counts/{datetime.now():%Y%m%d}"') + RAW)
    status, data = run_json(capsys)
    assert status == 1
    [volatile] = [f for f in findings(data) if f["code"] == code("checkpoint-changes-every-run")]
    assert "datetime.now()" in volatile["message"]
    assert (volatile["file"], volatile["new"]["line"]) == ("jobs/a.py", 7)


def test_every_format_renders_a_move_and_a_shared_checkpoint(repo: Repo, capsys) -> None:
    move_counts(repo)
    repo.put("jobs/d.py", HEADER + 'orders.selectExpr("value").writeStream.format("parquet")'
             '.option("checkpointLocation", "/chk/events").start("/t/copy")\n')
    moved, shared = code("query-moved"), code("checkpoint-shared")

    status, text = run(capsys, "text")
    assert status == 1
    assert f"note[{moved}] query-moved: the query moved from HEAD:jobs/a.py:5:" in text
    # The old location's line is quoted from the file it was in (a.py), not from b.py.
    assert "  old: HEAD:jobs/a.py:5:" in text
    assert '    | (orders.groupBy("key").count()' in text
    assert f"error[{shared}] checkpoint-shared" in text and "jobs/c.py:5:" in text

    status, out = run(capsys, "github")
    assert status == 1
    assert any(line.startswith("::notice file=jobs/b.py,") and f"title={moved} query-moved"
               in line for line in out.splitlines())
    assert any(line.startswith("::error file=jobs/d.py,line=5,") and shared in line
               for line in out.splitlines())

    status, out = run(capsys, "sarif")
    data = json.loads(out)
    jsonschema.validate(data, json.loads(SARIF_SCHEMA.read_text()))
    results = {r["ruleId"]: r for r in data["runs"][0]["results"]}
    assert results[moved]["level"] == "note"
    assert results[moved]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "jobs/b.py")
    assert "HEAD:jobs/a.py:5" in results[moved]["message"]["text"]
    assert results[shared]["level"] == "error"

    status, out = run(capsys, "markdown")
    assert "| ✅ | `jobs/b.py:" in out and f"{moved}" in out
    assert "| ❌ | `jobs/d.py:5` |" in out


@pytest.mark.parametrize(("text", "call"), [
    ("/chk/{datetime.now()}", "datetime.now()"),
    ('/chk/e_{dt.datetime.utcnow().strftime("%Y%m%d")}', "dt.datetime.utcnow()"),
    ("/chk/{date.today().isoformat()}", "date.today()"),
    ("/chk/{str(time.time())}", "time.time()"),
    ('"/chk/j/%d" % stamp where stamp = <unresolved: int(time.time())>', "time.time()"),
    ('"/chk/" + run where run = <unresolved: uuid.uuid4().hex>', "uuid.uuid4()"),
    ("/chk/{uuid4()}", "uuid4()"),
    ("/chk/{pd.Timestamp.now(tz='UTC')}", "pd.Timestamp.now(tz='UTC')"),
    ("/chk/{os.environ['CHK']}", None),
    ("/chk/{today}", None),
    ("/chk/{update_time()}", None),
])
def test_volatile_call_names_the_call(text: str, call: str | None) -> None:
    from streamlint.extract.volatile import volatile_call
    from streamlint.model import Unknown

    assert volatile_call(Unknown(text)) == call


def test_the_cheap_filter_keeps_files_that_could_build_the_path() -> None:
    from streamlint.workflow.crossfile import might_share

    words = [frozenset({b"chk", b"orders", b"v2"})]
    built = b'ROOT = "/mnt/chk"\nq.writeStream.option("checkpointLocation", f"{ROOT}/orders_v2")'
    assert might_share(built, words)
    assert not might_share(built.replace(b"writeStream", b"write"), words)
    assert not might_share(built.replace(b"orders_v2", b"ordersv2"), words)
