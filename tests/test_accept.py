"""Accepting a deliberate change: suppression comments anywhere on the statement, the
reviewed `.streamlint-accept.toml`, and neither rotting after the change is merged."""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.model.errors import UsageError
from streamlint.policy.accept import expired_finding, parse
from streamlint.rulebook.book import load_rules
from streamlint.workflow.check import check

ROOT = Path(__file__).resolve().parents[1]
ORDERS = ROOT / "examples" / "orders"
CODES = {rule.name: rule.code for rule in load_rules()}
WINDOW, AGGREGATES = CODES["window-changed"], CODES["aggregates-changed"]
MAX_LINE = 'F.max("amount").alias("largest_order"))'  # the .agg(...) line, not the groupBy


def add_comment(path: Path, marker: str, comment: str) -> None:
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if marker in line)
    lines[n] += f"  {comment}"
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "jobs").mkdir()
    shutil.copy(ORDERS / "old.py", tmp_path / "jobs" / "old.py")
    shutil.copy(ORDERS / "new.py", tmp_path / "jobs" / "new.py")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def diff(capsys: pytest.CaptureFixture[str]) -> dict:
    main(["diff", "jobs/old.py", "jobs/new.py", "--format", "json"])
    return json.loads(capsys.readouterr().out)


def codes(data: dict) -> list[str]:
    return [f["code"] for f in data["findings"]]


# -- comments on the statement ----------------------------------------------------------------


def test_comment_on_any_line_of_the_statement_counts(jobs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    before = diff(capsys)
    [finding] = [f for f in before["findings"] if f["code"] == AGGREGATES]
    add_comment(jobs / "jobs" / "new.py", MAX_LINE,
                f"# streamlint: ignore[{AGGREGATES}] largest order added, new checkpoint")
    line = next(n for n, text in enumerate((jobs / "jobs" / "new.py").read_text()
                                           .splitlines(), 1) if MAX_LINE in text)
    assert line != finding["new"]["line"]  # the comment is not on the line it points at
    after = diff(capsys)
    assert AGGREGATES not in codes(after) and "SL01" not in codes(after)


def test_comment_on_another_statement_says_where_the_finding_is(jobs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    add_comment(jobs / "jobs" / "new.py", "def revenue_per_customer",
                f"# streamlint: ignore[{WINDOW}] wider window")
    data = diff(capsys)
    [unused] = [f for f in data["findings"] if f["code"] == "SL01"]
    window_line = next(f["new"]["line"] for f in data["findings"] if f["code"] == WINDOW)
    assert f"{WINDOW} points at line {window_line}" in unused["message"]


def test_a_comment_the_old_version_had_is_neither_unused_nor_reused(jobs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    comment = f"# streamlint: ignore[{WINDOW}] wider window, agreed in OPS-9"
    for name in ("old.py", "new.py"):  # accepted and merged before: in both versions
        add_comment(jobs / "jobs" / name, "def read_orders", comment)
    shutil.copy(jobs / "jobs" / "old.py", jobs / "jobs" / "same.py")
    main(["diff", "jobs/old.py", "jobs/same.py", "--format", "json"])
    assert codes(json.loads(capsys.readouterr().out)) == []  # not SL01
    # on the window's statement in both: it accepted the earlier change, not this one
    for name in ("old.py", "new.py"):
        add_comment(jobs / "jobs" / name, '.groupBy(F.window("event_time"', comment)
    assert WINDOW in codes(diff(capsys))


# -- the acceptance file ----------------------------------------------------------------------

ENTRY = '''[[accept]]
code = "{code}"
{target}
reason = "ten-minute windows, new checkpoint from the old offsets (OPS-77)"
{extra}
'''


def entry(code: str, target: str, extra: str = "") -> str:
    return ENTRY.format(code=code, target=target, extra=extra)


def test_accept_by_query_and_by_checkpoint(jobs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (jobs / ".streamlint-accept.toml").write_text(
        entry(WINDOW, 'query = "revenue_per_customer"')
        + entry(AGGREGATES, 'checkpoint = "s3://lake/checkpoints/revenue"'))
    data = diff(capsys)
    assert WINDOW not in codes(data) and AGGREGATES not in codes(data)
    main(["diff", "jobs/old.py", "jobs/new.py"])
    assert "2 findings accepted" in capsys.readouterr().out


def test_an_expired_entry_accepts_nothing_and_is_reported(jobs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (jobs / ".streamlint-accept.toml").write_text(
        entry(WINDOW, 'query = "revenue_per_customer"', "expires = 2020-01-31"))
    data = diff(capsys)
    assert WINDOW in codes(data)
    [expired] = [f for f in data["findings"] if f["code"] == "SL04"]
    assert "expired on 2020-01-31" in expired["message"]
    assert expired["new"]["path"].endswith(".streamlint-accept.toml")
    assert expired["new"]["line"] == 1


@pytest.mark.parametrize(("text", "named"), [
    ('[[accept]]\ncode = "AG04"\nquery = "q"\nreason = "r"\nexpiry = 2030-01-01\n',
     "`expiry`"),
    ('[settings]\nx = 1\n', "`settings`"),
    ('[[accept]]\ncode = "AG04"\nreason = "r"\n', "`query` or `checkpoint`"),
    ('[[accept]]\ncode = "AG4"\nquery = "q"\nreason = "r"\n', "'AG4'"),
    ('[[accept]]\ncode = "AG04"\nquery = "q"\nreason = "r"\nexpires = "soon"\n', "`expires`"),
])
def test_a_malformed_entry_is_an_error_naming_file_and_key(text: str, named: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse(text, "repo/.streamlint-accept.toml")
    assert "repo/.streamlint-accept.toml" in str(raised.value) and named in str(raised.value)


def test_the_cli_reports_a_bad_file_as_a_usage_error(jobs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (jobs / ".streamlint-accept.toml").write_text(
        entry(WINDOW, 'query = "revenue_per_customer"', 'owner = "me"'))
    assert main(["diff", "jobs/old.py", "jobs/new.py"]) == 2
    err = capsys.readouterr().err
    assert ".streamlint-accept.toml" in err and "`owner`" in err


def test_expired_finding_points_at_the_entry() -> None:
    [item] = parse(entry(WINDOW, 'query = "q"', "expires = 2021-05-01"), "a.toml")
    assert item.expired(datetime.date(2021, 5, 2)) and not item.expired(datetime.date(2021, 5, 1))
    finding = expired_finding(item)
    assert (finding.code, finding.new.path, finding.new.line) == ("SL04", "a.toml", 1)


# -- git mode: an acceptance is for the pull request that makes the change ------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.put("jobs/orders.py", ORDERS / "old.py")
    repo.commit("the job as it runs")
    monkeypatch.chdir(repo.path)
    return repo


def found(outcome) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.code for r in outcome.reports for f in r.findings]


def test_accepted_in_the_pull_request_then_quiet_after_merge(repo: Repo) -> None:
    repo.put("jobs/orders.py", ORDERS / "new.py")
    add_comment(repo.path / "jobs" / "orders.py", MAX_LINE,
                f"# streamlint: ignore[{AGGREGATES}] largest order, new checkpoint (OPS-77)")
    repo.put(".streamlint-accept.toml", entry(WINDOW, 'query = "revenue_per_customer"'))
    outcome = check("HEAD", cwd=repo.path)
    assert WINDOW not in found(outcome) and AGGREGATES not in found(outcome)
    assert outcome.warnings == ()
    repo.commit("the deliberate change, merged")
    # A later pull request touching the same file elsewhere: nothing complains.
    repo.edit("jobs/orders.py", '"10 minutes")\n        .groupBy',
              '"10 minutes")  # the watermark\n        .groupBy')
    outcome = check("HEAD", cwd=repo.path)
    assert "SL01" not in found(outcome) and outcome.warnings == ()


def test_a_merged_entry_does_not_accept_a_later_change(repo: Repo) -> None:
    repo.put(".streamlint-accept.toml", entry(WINDOW, 'query = "revenue_per_customer"'))
    repo.commit("an acceptance merged long ago")
    repo.put("jobs/orders.py", ORDERS / "new.py")
    assert WINDOW in found(check("HEAD", cwd=repo.path))


def test_a_new_entry_that_accepts_nothing_is_reported(repo: Repo) -> None:
    repo.put("jobs/orders.py", ORDERS / "new.py")
    repo.put(".streamlint-accept.toml", entry(WINDOW, 'query = "revenue_per_custmer"'))
    outcome = check("HEAD", cwd=repo.path)
    assert WINDOW in found(outcome)
    [warning] = outcome.warnings
    assert warning.startswith(".streamlint-accept.toml:1: SL03 unused-acceptance")


def test_the_readme_example_is_a_valid_acceptance_file() -> None:
    page = (ROOT / "docs" / "suppressions.md").read_text(encoding="utf-8")
    block = page.split("```toml\n", 1)[1].split("```", 1)[0]
    [item] = parse(block, "docs/suppressions.md")
    assert (item.code, item.query, item.expires) == ("AG04", "revenue_per_customer",
                                                     datetime.date(2026, 12, 31))


TWO_QUERIES = '''spark.conf.set("spark.sql.shuffle.partitions", "{n}")
a = spark.readStream.format("kafka").option("subscribe", "orders").load()
(a.groupBy("k").count().writeStream.queryName("orders, eu").outputMode("update")
    .format("console").option("checkpointLocation", "/chk/a").start())
b = spark.readStream.format("kafka").option("subscribe", "pay").load()
(b.groupBy("k").count().writeStream.queryName("payments").outputMode("update")
    .format("console").option("checkpointLocation", "/chk/b").start())
'''


@pytest.mark.parametrize(("accepted", "kept"), [("eu", True), ("orders, eu", False)])
def test_a_query_name_with_a_comma_is_one_name(tmp_path: Path, monkeypatch, capsys,  # type: ignore[no-untyped-def]
                                               accepted: str, kept: bool) -> None:
    """A finding shared by a query named "orders, eu" and another is about those two queries:
    an acceptance for a query "eu" is not one of them (issue 28: names were split at commas)."""
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "old.py").write_text(TWO_QUERIES.format(n=200))
    (tmp_path / "jobs" / "new.py").write_text(TWO_QUERIES.format(n=400))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.chdir(tmp_path)
    code = CODES["shuffle-partitions-changed"]
    (tmp_path / ".streamlint-accept.toml").write_text(entry(code, f'query = "{accepted}"'))
    data = diff(capsys)
    assert (code in codes(data)) is kept
