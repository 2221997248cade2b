"""What a team configures and records: select/ignore/severity/overrides, suppressions.

Codes are looked up by rule name in rules/*.toml; lines are found in the job files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
ORDERS = ROOT / "examples" / "orders"
CODES = {rule.name: rule.code for rule in load_rules()}
WINDOW, AGGREGATES = CODES["window-changed"], CODES["aggregates-changed"]
WINDOW_CALL = 'F.window("event_time", "10 minutes")'


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "jobs").mkdir()
    shutil.copy(ORDERS / "old.py", tmp_path / "jobs" / "old.py")
    shutil.copy(ORDERS / "new.py", tmp_path / "jobs" / "new.py")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def diff_json(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    status = main(["diff", "jobs/old.py", "jobs/new.py", "--format", "json", *extra])
    return status, json.loads(capsys.readouterr().out)


def codes(data: dict) -> set[str]:
    return {f["code"] for f in data["findings"]}


def annotate(path: Path, marker: str, comment: str) -> None:
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if marker in line)
    lines[n] += f"  {comment}"
    path.write_text("\n".join(lines) + "\n")


# -- configuration ---------------------------------------------------------------------------


def test_ignore_and_select(pair: Path, capsys) -> None:
    status, full = diff_json(capsys)
    assert status == 1 and {WINDOW, AGGREGATES} <= codes(full)
    (pair / "pyproject.toml").write_text(
        f'[tool.streamlint]\nignore = ["{WINDOW}", "{AGGREGATES}"]\n')
    status, data = diff_json(capsys)
    assert codes(data) == codes(full) - {WINDOW, AGGREGATES}
    assert status == 0  # what remains is to review or compatible
    (pair / "pyproject.toml").write_text('[tool.streamlint]\nselect = ["AG"]\n')
    status, data = diff_json(capsys)
    assert status == 1 and codes(data) == {c for c in codes(full) if c.startswith("AG")}


def test_severity_override(pair: Path, capsys) -> None:
    (pair / "streamlint.toml").write_text(
        f'[severity]\n{WINDOW} = "review"\n{AGGREGATES} = "review"\n')
    status, data = diff_json(capsys)
    assert status == 0 and data["verdict"] == "review"
    assert {f["verdict"] for f in data["findings"] if f["code"] == WINDOW} == {"review"}


def test_per_path_override(pair: Path, capsys) -> None:
    (pair / "pyproject.toml").write_text(
        '[tool.streamlint]\n\n[[tool.streamlint.overrides]]\npaths = ["jobs/*"]\n'
        f'ignore = ["{WINDOW}"]\n\n[[tool.streamlint.overrides]]\npaths = ["other/**"]\n'
        f'ignore = ["{AGGREGATES}"]\n')
    _, data = diff_json(capsys)
    assert WINDOW not in codes(data) and AGGREGATES in codes(data)


@pytest.mark.parametrize(("text", "named"), [
    ('[tool.streamlint]\nexlcude = ["x"]\n', "`exlcude`"),
    ('[tool.streamlint]\n[[tool.streamlint.overrides]]\npaths = ["a"]\nignroe = ["X"]\n',
     "`overrides[0].ignroe`"),
    ('[tool.streamlint]\n[[tool.streamlint.overrides]]\nignore = ["X"]\n', "`overrides[0].paths`"),
    ('[tool.streamlint]\nseverity = { AG04 = "fatal" }\n', "`severity.AG04`"),
    ('[tool.streamlint]\ninclude = "jobs/*"\n', "`include`"),
    ('[tool.streamlint]\nspark-version = "three"\n', "`spark-version`"),
])
def test_bad_configuration_names_file_and_key(pair: Path, capsys, text: str, named: str) -> None:
    (pair / "pyproject.toml").write_text(text)
    assert main(["diff", "jobs/old.py", "jobs/new.py"]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml" in err and named in err and "Traceback" not in err


def test_bad_configuration_fails_check_too(tmp_path: Path, monkeypatch, capsys) -> None:
    from gitrepo import Repo

    repo = Repo(tmp_path)
    repo.put("streamlint.toml", 'selcet = ["AG"]\n')
    repo.commit()
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--base", "HEAD"]) == 2
    assert "streamlint.toml" in capsys.readouterr().err


# -- suppressions ----------------------------------------------------------------------------


def test_suppression_with_codes_and_reason(pair: Path, capsys) -> None:
    annotate(pair / "jobs" / "new.py", WINDOW_CALL,
             f"# streamlint: ignore[{WINDOW}, {AGGREGATES}] new checkpoint from offsets "
             "planned in OPS-1234")
    status, data = diff_json(capsys)
    assert WINDOW not in codes(data) and AGGREGATES not in codes(data)
    assert status == 0
    main(["diff", "jobs/old.py", "jobs/new.py"])
    assert "2 findings accepted" in capsys.readouterr().out


def test_suppression_of_one_code_leaves_the_other(pair: Path, capsys) -> None:
    annotate(pair / "jobs" / "new.py", WINDOW_CALL,
             f"# streamlint: ignore[{WINDOW}] wider window agreed with finance")
    status, data = diff_json(capsys)
    assert status == 1 and AGGREGATES in codes(data) and WINDOW not in codes(data)


@pytest.mark.parametrize("comment", [
    "# streamlint: ignore[{code}]",            # no reason
    "# streamlint: ignore wider window, on purpose",  # no code
])
def test_malformed_suppression_silences_nothing_and_is_reported(pair: Path, capsys,
                                                                comment: str) -> None:
    annotate(pair / "jobs" / "new.py", WINDOW_CALL, comment.format(code=WINDOW))
    status, data = diff_json(capsys)
    assert status == 1 and WINDOW in codes(data)
    [bad] = [f for f in data["findings"] if f["name"] == "malformed-suppression"]
    assert bad["new"]["line"] == 1 + next(
        n for n, line in enumerate((pair / "jobs/new.py").read_text().splitlines())
        if WINDOW_CALL in line)


def test_unknown_code_in_suppression_is_named_and_the_known_one_still_works(
        pair: Path, capsys) -> None:
    annotate(pair / "jobs" / "new.py", WINDOW_CALL,
             f"# streamlint: ignore[{WINDOW}, AG999] agreed with finance")
    status, data = diff_json(capsys)
    assert WINDOW not in codes(data) and AGGREGATES in codes(data) and status == 1
    [bad] = [f for f in data["findings"] if f["name"] == "malformed-suppression"]
    assert "AG999" in bad["message"] and WINDOW not in bad["message"]
    assert "unused-suppression" not in {f["name"] for f in data["findings"]}


def test_unused_suppression_is_reported(pair: Path, capsys) -> None:
    annotate(pair / "jobs" / "new.py", "def main", f"# streamlint: ignore[{WINDOW}] old note")
    status, data = diff_json(capsys)
    assert WINDOW in codes(data)
    [unused] = [f for f in data["findings"] if f["name"] == "unused-suppression"]
    assert unused["verdict"] == "review" and WINDOW in unused["message"]


def test_a_comment_in_a_string_is_not_a_suppression(pair: Path, capsys) -> None:
    annotate(pair / "jobs" / "new.py", WINDOW_CALL, "")
    path = pair / "jobs" / "new.py"
    path.write_text(path.read_text() + f'\nNOTE = "# streamlint: ignore[{WINDOW}] nope"\n')
    status, data = diff_json(capsys)
    assert status == 1 and "unused-suppression" not in {f["name"] for f in data["findings"]}


def test_suppression_for_an_ignored_code_is_not_unused(pair: Path, capsys) -> None:
    annotate(pair / "jobs" / "new.py", WINDOW_CALL,
             f"# streamlint: ignore[{WINDOW}] agreed with the on-call team")
    (pair / "pyproject.toml").write_text(f'[tool.streamlint]\nignore = ["{WINDOW}"]\n')
    _, data = diff_json(capsys)
    assert "unused-suppression" not in {f["name"] for f in data["findings"]}


def test_suppressed_findings_are_suppressed_results_in_sarif(pair: Path, capsys) -> None:
    import jsonschema

    annotate(pair / "jobs" / "new.py", WINDOW_CALL,
             f"# streamlint: ignore[{WINDOW}] agreed with the on-call team")
    main(["diff", "jobs/old.py", "jobs/new.py", "--format", "sarif"])
    data = json.loads(capsys.readouterr().out)
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(data, schema)
    results = data["runs"][0]["results"]
    assert [r.get("suppressions") for r in results if r["ruleId"] == WINDOW] == [
        [{"kind": "inSource"}]]
    assert all("suppressions" not in r for r in results if r["ruleId"] != WINDOW)


@pytest.mark.parametrize(("path", "patterns", "expected"), [
    ("jobs/orders.py", ("jobs",), True),           # a folder matches what is in it
    ("jobs/orders.py", ("jobs/",), True),
    ("jobs/deep/orders.py", ("jobs/*",), True),    # `*` crosses folders (fnmatch)
    ("orders.py", ("**/*.py",), True),             # `**/` also matches at the top
    ("jobs/orders.py", ("**/*.py",), True),
    ("jobsx/orders.py", ("jobs",), False),
    ("lib/orders.py", ("jobs/**",), False),
    ("jobs/orders.txt", ("*.py",), False),
])
def test_globs(path: str, patterns: tuple[str, ...], expected: bool) -> None:
    from streamlint.policy.config import matches

    assert matches(path, patterns) is expected


# -- comments in the repository modules a job imports ------------------------------------------

HELPER_JOB = '''from helpers import dedup
events = spark.readStream.format("kafka").option("subscribe", "orders").load()
dedup(events).writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/o/a")
'''
HELPER = '''def dedup(df):
    return df.dropDuplicates([{keys}]){comment}
'''
DEDUP_KEYS = CODES["dedup-keys-changed"]


def helper_versions(root: Path, old_comment: str, new_comment: str) -> tuple[str, str]:
    """Two versions of a repository whose job's dedup keys change in its helper module."""
    for side, keys, comment in (("old", '"id"', old_comment), ("new", '"id", "ts"', new_comment)):
        (root / side).mkdir()
        (root / side / "pyproject.toml").write_text("")
        (root / side / "job.py").write_text(HELPER_JOB)
        (root / side / "helpers.py").write_text(HELPER.format(keys=keys, comment=comment))
    return str(root / "old" / "job.py"), str(root / "new" / "job.py")


def helper_diff(capsys: pytest.CaptureFixture[str], old: str, new: str) -> tuple[int, dict]:
    status = main(["diff", old, new, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def test_a_comment_in_a_helper_module_accepts_the_finding_at_its_statement(
        tmp_path: Path, capsys) -> None:
    old, new = helper_versions(tmp_path, "", f"  # streamlint: ignore[{DEDUP_KEYS}] OPS-7 reset")
    status, data = helper_diff(capsys, old, new)
    assert status == 0 and DEDUP_KEYS not in codes(data)
    main(["diff", old, new, "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    [accepted] = [r for r in results if r["ruleId"] == DEDUP_KEYS]
    assert accepted["suppressions"] == [{"kind": "inSource"}]


def test_without_the_comment_the_helper_finding_stands(tmp_path: Path, capsys) -> None:
    old, new = helper_versions(tmp_path, "", "")
    status, data = helper_diff(capsys, old, new)
    assert status == 1 and DEDUP_KEYS in codes(data)
    assert data["findings"][0]["new"]["path"].endswith("helpers.py")


def test_a_helper_comment_the_base_already_had_accepts_nothing_new(
        tmp_path: Path, capsys) -> None:
    comment = f"  # streamlint: ignore[{DEDUP_KEYS}] OPS-7 reset"
    old, new = helper_versions(tmp_path, comment, comment)
    status, data = helper_diff(capsys, old, new)
    assert status == 1 and DEDUP_KEYS in codes(data)
    assert "unused-suppression" not in {f["name"] for f in data["findings"]}


def test_a_helper_comment_for_another_code_is_not_called_unused(tmp_path: Path, capsys) -> None:
    # Another job importing the helper may be the one the comment is for.
    old, new = helper_versions(tmp_path, "", f"  # streamlint: ignore[{WINDOW}] other job")
    status, data = helper_diff(capsys, old, new)
    assert status == 1 and codes(data) == {DEDUP_KEYS}


def test_a_malformed_helper_comment_at_the_finding_is_reported(tmp_path: Path, capsys) -> None:
    old, new = helper_versions(tmp_path, "", f"  # streamlint: ignore[{DEDUP_KEYS}]")
    status, data = helper_diff(capsys, old, new)
    assert status == 1 and codes(data) == {DEDUP_KEYS, "SL02"}
    [bad] = [f for f in data["findings"] if f["code"] == "SL02"]
    assert bad["new"]["path"].endswith("helpers.py") and "a reason" in bad["message"]
