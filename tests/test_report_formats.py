"""The pull-request formats (github, sarif, markdown) from `diff` and `check`.

SARIF is validated against the official 2.1.0 schema (a copy in tests/data, the same file as
the team's shared fixture); lines are found in the job files themselves.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
SHARED_SCHEMA = ROOT.parent / "shared" / "fixtures" / "sarif-schema-2.1.0.json"
ORDERS = ROOT / "examples" / "orders"
RULES = {rule.code: rule for rule in load_rules()}
WINDOW_CALL = 'F.window("event_time", "10 minutes")'
WINDOW = next(r.code for r in RULES.values() if r.name == "window-changed")


def line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    repo.put("jobs/orders.py", ORDERS / "old.py")
    repo.put("jobs/clicks.py", ROOT / "examples" / "clickstream" / "old.py")
    repo.commit()
    shutil.copy(ORDERS / "new.py", tmp_path / "jobs" / "orders.py")
    monkeypatch.chdir(tmp_path)
    return repo


def sarif(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    status = main([*argv, "--format", "sarif"])
    data = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    return status, data


def test_schema_copy_is_the_shared_fixture() -> None:
    if SHARED_SCHEMA.exists():  # in the team's checkout; a clean clone has only the copy
        assert SCHEMA_PATH.read_bytes() == SHARED_SCHEMA.read_bytes()
    assert json.loads(SCHEMA_PATH.read_text())["title"].startswith("Static Analysis Results")


def test_sarif_from_check_validates_and_points_at_the_new_line(repo: Repo, capsys) -> None:
    status, data = sarif(capsys, "check", "--base", "HEAD")
    assert status == 1
    [run] = data["runs"]
    results = {r["ruleId"]: r for r in run["results"]}
    window = results[WINDOW]
    assert window["level"] == "error"
    where = window["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "jobs/orders.py"
    assert where["region"]["startLine"] == line_of(repo.path / "jobs/orders.py", WINDOW_CALL)
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(set(results), key=[r["id"] for r in rules].index)
    for rule in rules:
        assert rule["helpUri"] == RULES[rule["id"]].docs
        assert rules[run["results"][0]["ruleIndex"]]["id"] == run["results"][0]["ruleId"]
    levels = {"incompatible": "error", "review": "warning", "compatible": "note"}
    for result in run["results"]:
        assert result["level"] == levels[RULES[result["ruleId"]].verdict]


def test_sarif_from_diff_is_relative_to_the_repository(repo: Repo, capsys, monkeypatch) -> None:
    (repo.path / "old").mkdir()
    shutil.copy(ORDERS / "old.py", repo.path / "old" / "orders.py")
    monkeypatch.chdir(repo.path / "jobs")
    status, data = sarif(capsys, "diff", "../old/orders.py", "orders.py")
    assert status == 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in data["runs"][0]["results"]}
    assert uris == {"jobs/orders.py"}


def test_sarif_with_no_findings_and_with_errors_validates(repo: Repo, capsys) -> None:
    shutil.copy(ORDERS / "old.py", repo.path / "jobs" / "orders.py")
    status, data = sarif(capsys, "check", "--base", "HEAD")
    assert (status, data["runs"][0]["results"]) == (0, [])
    repo.put("jobs/broken.py", "q = spark.readStream.load(\n")
    status, data = sarif(capsys, "check", "--base", "HEAD")
    assert status == 2
    [note] = data["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    where = note["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "jobs/broken.py"
    assert where["region"]["startLine"] == 1 and "syntax error" in note["message"]["text"]


def test_github_annotates_an_unreadable_file_on_its_line(repo: Repo, capsys) -> None:
    repo.put("jobs/broken.py", "q = spark.readStream.load()\nq.writeStream.start(\n")
    assert main(["check", "--base", "HEAD", "--format", "github"]) == 2
    out = capsys.readouterr().out
    assert "::error file=jobs/broken.py,line=2," in out


ANNOTATION = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),"
                        r"title=([^:]+)::(.+)$")


def test_github_annotations(repo: Repo, capsys) -> None:
    assert main(["check", "--base", "HEAD", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    annotations = [ANNOTATION.match(line) for line in lines if line.startswith("::")]
    assert annotations and all(annotations)
    kinds = {"incompatible": "error", "review": "warning", "compatible": "notice"}
    for match in annotations:
        assert match is not None
        kind, path, line, _, title, message = match.groups()
        rule_code = title.split(" ")[0]
        assert kind == kinds[RULES[rule_code].verdict]
        assert path == "jobs/orders.py" and "\n" not in message
    window = next(m for m in annotations if m and m.group(5).startswith(WINDOW))
    assert int(window.group(3)) == line_of(repo.path / "jobs/orders.py", WINDOW_CALL)


def test_github_escapes_newlines_and_commas() -> None:
    from streamlint.report.github import _data, _property

    assert _data("a\nb%") == "a%0Ab%25"
    assert _property("x,y:z") == "x%2Cy%3Az"


def test_markdown_summary(repo: Repo, capsys) -> None:
    assert main(["check", "--base", "HEAD", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("### ❌ streamlint: incompatible")
    line = line_of(repo.path / "jobs/orders.py", WINDOW_CALL)
    row = next(r for r in out.splitlines() if f"[{WINDOW}]" in r)
    assert row.startswith("| ❌ | `jobs/orders.py:" + str(line) + "` |")
    assert f"({RULES[WINDOW].docs})" in row


def test_markdown_fix_block_per_finding_with_prose_outside_the_diff(repo: Repo,
                                                                    capsys) -> None:
    assert main(["check", "--base", "HEAD", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    fixes = out.split("<summary>How to fix</summary>", 1)[1].split("</details>", 1)[0]
    findings = [r for r in out.splitlines() if r.startswith(("| ❌", "| ⚠️"))]
    headers = [line for line in fixes.splitlines() if line.startswith("**")]
    assert len(headers) == len(findings)  # one block per finding to act on
    line = line_of(repo.path / "jobs/orders.py", WINDOW_CALL)
    assert any(h.startswith(f"**❌ {WINDOW} ") and f"`jobs/orders.py:{line}`" in h
               for h in headers)
    blocks = re.findall(r"```diff\n(.*?)```", fixes, re.S)
    assert blocks
    for block in blocks:  # a patch only: no prose inside a diff block
        assert all(row.startswith(("-", "+", "     #")) for row in block.splitlines()), block
    assert "to start over on purpose" not in "".join(blocks)
    assert "Next: `streamlint checkpoint offsets " in fixes


def test_diff_and_check_share_the_formatters(repo: Repo, capsys, tmp_path_factory) -> None:
    # The old copy lives outside the repository: inside it, it would be a second job on the
    # same checkpoints, which `check` reports (QY11).
    old = tmp_path_factory.mktemp("old") / "orders.py"
    shutil.copy(ORDERS / "old.py", old)
    main(["diff", str(old), "jobs/orders.py", "--format", "github"])
    from_diff = capsys.readouterr().out
    main(["check", "--base", "HEAD", "jobs/orders.py", "--format", "github"])
    assert capsys.readouterr().out == from_diff


def test_an_unreadable_file_never_reads_as_a_pass(repo: Repo, capsys) -> None:
    # The check fails (exit 2), so neither the text summary nor the pull-request comment may
    # end on "compatible: the new code can restart" / a green headline, as they used to.
    repo.put("jobs/broken.py", "q = spark.readStream.load(\n")
    assert main(["check", "--base", "HEAD"]) == 2
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("no verdict: 1 file could not be read")
    assert main(["check", "--base", "HEAD", "--format", "markdown"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("### ⛔ streamlint: 1 file could not be read\n")
    assert "\nThe changed jobs can restart" not in out
    assert main(["check", "--base", "HEAD", "--format", "github"]) == 2
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("streamlint: no verdict, 1 file could not be read")


def test_sarif_locations_are_uri_references(repo: Repo, capsys) -> None:
    # SARIF's artifactLocation.uri is a URI reference (RFC 3986): a space or an "é" in a
    # path must be percent-encoded (UTF-8), as in "my%20job%20%C3%A9.py".
    name = "jobs/my job é.py"
    repo.put(name, ORDERS / "old.py")
    repo.commit("a job with a space in its name")
    shutil.copy(ORDERS / "new.py", repo.path / name)
    status, data = sarif(capsys, "check", "--base", "HEAD")
    assert status == 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in data["runs"][0]["results"]}
    assert uris == {"jobs/my%20job%20%C3%A9.py"}


def test_every_format_the_cli_offers_renders_and_no_other_does() -> None:
    """A format name without its branch in `render_result` is an error, never another format's
    output (a new format wired into the CLI only would have printed Markdown)."""
    from streamlint.cli.options import FORMATS
    from streamlint.report import render

    assert all(isinstance(render(fmt, []), str) for fmt in FORMATS)
    with pytest.raises(ValueError, match="junit"):
        render("junit", [])
