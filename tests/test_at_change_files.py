"""Findings at the change across files (issue 31): when what a query uses changed in a module
the job imports (a settings class, a constants module), the finding points at that module's
changed line and keeps the job's usage as a related location, in every report format. The
shape is the one of real jobs: `from conf.settings import settings` and a field of a
`Settings` class, `from conf import config` and a module constant. Expected lines are found
in the inputs' text by a marker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = next(rule.code for rule in load_rules()
                  if rule.name == "checkpoint-location-changed")
UNRESOLVED = next(rule.code for rule in load_rules() if rule.name == "unresolved-value-changed")

SETTINGS = '''class Settings:
    kafka_brokers: str = "localhost:9092"
    input_topic: str = "orders"
    checkpoint_root: str = "/chk"
    checkpoint_dir: str = "/chk/orders"


settings = Settings()
'''

JOB = '''from conf.settings import settings

events = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", settings.kafka_brokers)
          .option("subscribe", settings.input_topic).load())
events.writeStream.format("delta") \\
    .option("checkpointLocation", {checkpoint}).start("/out/orders")
'''

CONFIG = '''BROKERS = "localhost:9092"
CHECKPOINT = "/chk/payments"
'''

CONFIG_JOB = '''from conf import config

pay = spark.readStream.format("kafka").option("kafka.bootstrap.servers", config.BROKERS) \\
    .option("subscribe", "payments").load()
pay.writeStream.format("delta").option("checkpointLocation", config.CHECKPOINT) \\
    .start("/out/payments")
'''


def line_of(text: str, marker: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if marker in line)


def project(folder: Path, settings: str, job: str) -> Path:
    """A repository on disk: a pyproject, conf/settings.py and jobs/orders.py."""
    (folder / "conf").mkdir(parents=True)
    (folder / "jobs").mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "orders"\n')
    (folder / "conf" / "__init__.py").write_text("")
    (folder / "conf" / "settings.py").write_text(settings)
    (folder / "jobs" / "orders.py").write_text(job)
    return folder / "jobs" / "orders.py"


def diff(tmp_path: Path, capsys: pytest.CaptureFixture[str], new_settings: str,
         checkpoint: str = "settings.checkpoint_dir", fmt: str = "json") -> str:
    job = JOB.format(checkpoint=checkpoint)
    old = project(tmp_path / "old", SETTINGS, job)
    new = project(tmp_path / "new", new_settings, job)
    main(["diff", str(old), str(new), "--format", fmt, "--exit-zero"])
    return capsys.readouterr().out


MOVED = SETTINGS.replace('"/chk/orders"', '"/chk/orders_v2"')


def test_a_settings_field_changed_is_where_the_finding_points(tmp_path: Path, capsys) -> None:
    data = json.loads(diff(tmp_path, capsys, MOVED))
    [finding] = [f for f in data["findings"] if f["code"] == CHECKPOINT]
    line = line_of(SETTINGS, "checkpoint_dir:")
    assert (finding["new"]["path"], finding["new"]["line"]) == (
        str(tmp_path / "new" / "conf" / "settings.py"), line)
    assert (finding["old"]["path"], finding["old"]["line"]) == (
        str(tmp_path / "old" / "conf" / "settings.py"), line)
    job = JOB.format(checkpoint="settings.checkpoint_dir")
    assert [(r["path"], r["line"]) for r in finding["related"]] == [
        (str(tmp_path / "new" / "jobs" / "orders.py"), line_of(job, '"checkpointLocation"'))]


def test_every_format_agrees_on_the_two_places(tmp_path: Path, capsys) -> None:
    import jsonschema

    job_line = line_of(JOB, '"checkpointLocation"')
    line = line_of(SETTINGS, "checkpoint_dir:")
    text = diff(tmp_path / "text", capsys, MOVED, fmt="text")
    assert text.startswith(f"{tmp_path / 'text' / 'new' / 'conf' / 'settings.py'}:{line}:")
    assert f"  used at: {tmp_path / 'text' / 'new' / 'jobs' / 'orders.py'}:{job_line}:" in text
    sarif = json.loads(diff(tmp_path / "sarif", capsys, MOVED, fmt="sarif"))
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == CHECKPOINT]
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"].endswith("new/conf/settings.py")
    assert where["region"]["startLine"] == line
    [related] = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"].endswith("new/jobs/orders.py")
    assert related["physicalLocation"]["region"]["startLine"] == job_line
    github = diff(tmp_path / "github", capsys, MOVED, fmt="github")
    [annotation] = [n for n in github.splitlines() if f"title={CHECKPOINT} " in n]
    assert "new/conf/settings.py" in annotation and f",line={line}," in annotation
    markdown = diff(tmp_path / "markdown", capsys, MOVED, fmt="markdown")
    assert f"new/conf/settings.py:{line}` (query " in markdown
    assert "used at `" in markdown and f"new/jobs/orders.py:{job_line}`" in markdown


def test_two_changed_fields_in_one_value_leave_the_finding_at_the_usage(tmp_path: Path,
                                                                         capsys) -> None:
    # Which of the two changes caused the new checkpoint is not told: the finding stays where
    # the query uses them.
    both = MOVED.replace('"/chk"', '"/checkpoints"')
    data = json.loads(diff(tmp_path, capsys, both,
                           checkpoint="settings.checkpoint_root + settings.checkpoint_dir"))
    [finding] = [f for f in data["findings"] if f["code"] == CHECKPOINT]
    assert finding["new"]["path"] == str(tmp_path / "new" / "jobs" / "orders.py")
    assert finding["new"]["line"] == line_of(JOB, '"checkpointLocation"')
    assert finding["related"] == []


def test_a_field_the_query_does_not_use_moves_nothing(tmp_path: Path, capsys) -> None:
    # The checkpoint changed in the job's own constant; a changed settings field the query
    # does not use is not the cause.
    job = "CHK = '/chk/orders'\n" + JOB.format(checkpoint="CHK")
    old = project(tmp_path / "old", SETTINGS, job)
    new = project(tmp_path / "new", SETTINGS.replace('"/chk"', '"/checkpoints"'),
                  job.replace("'/chk/orders'", "'/chk/orders_v2'"))
    main(["diff", str(old), str(new), "--format", "json", "--exit-zero"])
    data = json.loads(capsys.readouterr().out)
    [finding] = [f for f in data["findings"] if f["code"] == CHECKPOINT]
    assert (finding["new"]["path"], finding["new"]["line"]) == (str(new), 1)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    repo.put("pyproject.toml", '[project]\nname = "payments"\n')
    repo.put("conf/__init__.py", "")
    repo.put("conf/config.py", CONFIG)
    repo.put("jobs/payments.py", CONFIG_JOB)
    repo.commit("payments as it runs today")
    monkeypatch.chdir(tmp_path)
    return repo


def check(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    main(["check", *args, "--format", "json", "--exit-zero"])
    return json.loads(capsys.readouterr().out)


def test_check_points_at_the_constant_changed_in_the_module(repo: Repo, capsys) -> None:
    repo.edit("conf/config.py", '"/chk/payments"', '"/chk/payments_v2"')
    data = check(capsys, "--base", "HEAD")
    (job,) = data["files"]
    [finding] = [f for f in job["findings"] if f["code"] == CHECKPOINT]
    line = line_of(CONFIG, "CHECKPOINT =")
    assert (finding["new"]["path"], finding["new"]["line"]) == ("conf/config.py", line)
    assert (finding["old"]["path"], finding["old"]["line"]) == ("HEAD:conf/config.py", line)
    assert [(r["path"], r["line"]) for r in finding["related"]] == [
        ("jobs/payments.py", line_of(CONFIG_JOB, '"checkpointLocation"'))]


def test_a_comment_at_the_usage_still_accepts_the_moved_finding(repo: Repo, capsys) -> None:
    repo.edit("conf/config.py", '"/chk/payments"', '"/chk/payments_v2"')
    repo.edit("jobs/payments.py", '.start("/out/payments")',
              f'.start("/out/payments")  # streamlint: ignore[{CHECKPOINT}] OPS-4 reset')
    repo.commit("new checkpoint, accepted in the job")
    (job,) = check(capsys, "--base", "HEAD~1", "--head", "HEAD")["files"]
    assert CHECKPOINT not in {f["code"] for f in job["findings"]}
    assert job["suppressed"] == [CHECKPOINT]


def test_a_comment_at_the_changed_constant_accepts_it(repo: Repo, capsys) -> None:
    repo.edit("conf/config.py", 'CHECKPOINT = "/chk/payments"',
              f'CHECKPOINT = "/chk/payments_v2"  # streamlint: ignore[{CHECKPOINT}] OPS-4')
    repo.commit("new checkpoint, accepted where it is set")
    (job,) = check(capsys, "--base", "HEAD~1", "--head", "HEAD")["files"]
    assert CHECKPOINT not in {f["code"] for f in job["findings"]}
    assert job["suppressed"] == [CHECKPOINT]


def test_a_changed_default_a_field_reads_is_where_the_finding_points(tmp_path: Path,
                                                                     capsys) -> None:
    # The field's own line did not change: the module constant it is set from did.
    settings = 'import os\n\nORDERS_CHECKPOINT = "/chk/orders"\n\n\n' + SETTINGS.replace(
        '"/chk/orders"', 'os.environ.get("ORDERS_CHECKPOINT", ORDERS_CHECKPOINT)')
    moved = settings.replace('= "/chk/orders"', '= "/chk/orders_v2"')
    job = JOB.format(checkpoint="settings.checkpoint_dir")
    old = project(tmp_path / "old", settings, job)
    new = project(tmp_path / "new", moved, job)
    main(["diff", str(old), str(new), "--format", "json", "--exit-zero"])
    data = json.loads(capsys.readouterr().out)
    # A value with a run-time override: unresolved-value-changed, not checkpoint-location-changed
    [finding] = [f for f in data["findings"] if f["code"] == UNRESOLVED]
    assert (finding["new"]["path"], finding["new"]["line"]) == (
        str(tmp_path / "new" / "conf" / "settings.py"), line_of(moved, "ORDERS_CHECKPOINT ="))
    assert [r["line"] for r in finding["related"]] == [line_of(job, '"checkpointLocation"')]
