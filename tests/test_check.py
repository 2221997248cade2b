"""`streamlint check --base REF`: changed jobs in a real git repository, one verdict.

Expected codes are looked up by the rule's name in rules/*.toml, never copied from output.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
JOBS = ROOT / "tests" / "jobs"


def code(name: str) -> str:
    return next(rule.code for rule in load_rules() if rule.name == name)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    repo.put("jobs/orders.py", EXAMPLES / "orders" / "old.py")
    repo.put("jobs/revenue.py", JOBS / "kafka_revenue.py")
    repo.put("jobs/inventory.py", JOBS / "inventory_delta.py")
    repo.put("lib/util.py", "def helper(x):\n    return x + 1\n")
    repo.put("README.md", "# jobs\n")
    repo.commit("jobs as they run today")
    monkeypatch.chdir(tmp_path)
    return repo


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def codes(data: dict) -> list[str]:
    return [f["code"] for file in data["files"] for f in file["findings"]]


def test_incompatible_change_in_working_tree(repo: Repo, capsys) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    assert data["verdict"] == "incompatible"
    assert [f["path"] for f in data["files"]] == ["jobs/orders.py"]
    assert code("window-changed") in codes(data)
    assert data["files"][0]["old_path"] == "HEAD:jobs/orders.py"
    # Nothing was checked out or written: the working tree still holds the change.
    assert "M jobs/orders.py" in repo.git("status", "--porcelain")


def test_compatible_change_exits_0(repo: Repo, capsys) -> None:
    repo.edit("jobs/revenue.py", '.trigger(processingTime="1 minute")',
              '.trigger(processingTime="30 seconds")')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0
    assert codes(data) == [code("trigger-changed")]


def test_rename_is_followed_not_reported_as_new_and_deleted(repo: Repo, capsys) -> None:
    repo.move("jobs/revenue.py", "pipelines/revenue_job.py")
    repo.commit("move")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 0
    [file] = data["files"]
    assert (file["status"], file["path"], file["old_path"]) == (
        "renamed", "pipelines/revenue_job.py", "HEAD~1:jobs/revenue.py")
    assert file["findings"] == []


def test_renamed_and_changed_job_is_compared_with_its_old_self(repo: Repo, capsys) -> None:
    repo.move("jobs/revenue.py", "pipelines/revenue_job.py")
    repo.edit("pipelines/revenue_job.py", 'F.window("paid_at", "10 minutes")',
              'F.window("paid_at", "5 minutes")')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    [file] = data["files"]
    assert file["status"] == "renamed"
    assert code("window-changed") in codes(data)
    assert code("query-added") not in codes(data)


def test_symlinked_job_is_read_at_its_target_on_both_sides(repo: Repo, capsys) -> None:
    """A deploy link retargeted from the running job to a changed copy is that change."""
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders_v2.py")
    (repo.path / "jobs" / "current.py").symlink_to("orders.py")
    repo.commit("deploy link")
    (repo.path / "jobs" / "current.py").unlink()
    (repo.path / "jobs" / "current.py").symlink_to("orders_v2.py")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    assert [f["path"] for f in data["files"]] == ["jobs/current.py"]
    assert code("window-changed") in codes(data)


def test_symlink_out_of_the_tree_at_the_base_is_a_new_job(repo: Repo, capsys) -> None:
    outside = repo.path.parent / "outside_job.py"
    shutil.copy(EXAMPLES / "orders" / "old.py", outside)
    (repo.path / "jobs" / "linked.py").symlink_to(outside)
    repo.commit("link out of the tree")
    (repo.path / "jobs" / "linked.py").unlink()
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "linked.py")
    repo.edit("jobs/revenue.py", '.trigger(processingTime="1 minute")',
              '.trigger(processingTime="30 seconds")')
    status, data = run_json(capsys, "--base", "HEAD")
    # The protocol's detail lines were skipped: the next file's old version is still read.
    assert code("trigger-changed") in codes(data)
    assert status in (0, 1)


def test_new_and_deleted_jobs_are_reported(repo: Repo, capsys) -> None:
    repo.put("jobs/fraud.py", JOBS / "fraud_state.py")  # untracked: still a new job
    (repo.path / "jobs" / "inventory.py").unlink()
    status, data = run_json(capsys, "--base", "HEAD")
    by_status = {f["status"]: f for f in data["files"]}
    assert set(by_status) == {"added", "deleted"}
    added = {f["code"] for f in by_status["added"]["findings"]}
    removed = {f["code"] for f in by_status["deleted"]["findings"]}
    assert added == {code("query-added")} and removed == {code("query-removed")}
    # A deleted job leaves its checkpoint behind: to review, which fails only with --strict.
    assert status == 0
    capsys.readouterr()
    assert main(["check", "--base", "HEAD", "--strict"]) == 1


def test_files_without_streaming_are_never_parsed(repo: Repo, capsys) -> None:
    # Not even valid Python: parsing it would be an error, so exit 0 proves the pre-filter.
    repo.put("lib/util.py", "def helper(x:\n")
    repo.put("scripts/notes.py", "this is not python {{{\n")
    status, data = run_json(capsys, "--base", "HEAD")
    assert (status, data["files"], data["errors"]) == (0, [], [])


def test_unreadable_job_is_exit_2_and_others_still_checked(repo: Repo, capsys) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    repo.put("jobs/broken.py", "df = spark.readStream.load(\n")
    status = main(["check", "--base", "HEAD"])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith("jobs/broken.py:") and "Traceback" not in captured.err
    assert f"error[{code('window-changed')}]" in captured.out


def test_paths_limit_the_check(repo: Repo, capsys) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    repo.edit("jobs/revenue.py", '"1 minute"', '"30 seconds"')
    status, data = run_json(capsys, "--base", "HEAD", "jobs/revenue.py")
    assert status == 0 and [f["path"] for f in data["files"]] == ["jobs/revenue.py"]
    status, data = run_json(capsys, "--base", "HEAD", "jobs")
    assert status == 1 and len(data["files"]) == 2


def test_paths_from_a_subfolder(repo: Repo, capsys, monkeypatch) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    monkeypatch.chdir(repo.path / "jobs")
    status, data = run_json(capsys, "--base", "HEAD", "orders.py")
    assert status == 1 and [f["path"] for f in data["files"]] == ["jobs/orders.py"]


def test_exclude_from_config(repo: Repo, capsys) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    repo.put("pyproject.toml", '[tool.streamlint]\nexclude = ["jobs/orders.py"]\n')
    status, data = run_json(capsys, "--base", "HEAD")
    assert (status, data["files"]) == (0, [])


def test_include_from_config(repo: Repo, capsys) -> None:
    repo.edit("jobs/revenue.py", '"1 minute"', '"30 seconds"')
    repo.put("streamlint.toml", 'include = ["pipelines"]\n')
    status, data = run_json(capsys, "--base", "HEAD")
    assert (status, data["files"]) == (0, [])
    repo.put("pipelines/revenue.py", JOBS / "kafka_revenue.py")
    status, data = run_json(capsys, "--base", "HEAD")
    assert [f["path"] for f in data["files"]] == ["pipelines/revenue.py"]


def test_an_include_that_matches_no_file_is_a_warning(repo: Repo, capsys) -> None:
    repo.edit("jobs/revenue.py", '"1 minute"', '"30 seconds"')
    repo.put("streamlint.toml", 'include = ["jobz/**", "jobs/**"]\n')  # a typo, and the real one
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0 and [f["path"] for f in data["files"]] == ["jobs/revenue.py"]
    main(["check", "--base", "HEAD"])
    err = capsys.readouterr().err
    assert "streamlint.toml" in err and "'jobz/**' matches no file" in err
    assert "jobs/**" not in err.replace("'jobz/**'", "")


def test_head_ref_compares_two_commits_ignoring_the_working_tree(repo: Repo, capsys) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    repo.commit("bigger window")
    repo.git("checkout", "-q", "HEAD~1", "--", "jobs/orders.py")  # tree back to the old job
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1 and code("window-changed") in codes(data)
    status, data = run_json(capsys, "--base", "HEAD~1")
    assert (status, data["files"]) == (0, [])


def test_many_files_use_the_process_pool_and_agree(repo: Repo, capsys) -> None:
    for n in range(10):
        repo.put(f"jobs/gen/revenue_{n}.py", JOBS / "kafka_revenue.py")
    repo.commit("ten more jobs")
    for n in range(10):
        repo.edit(f"jobs/gen/revenue_{n}.py", '"10 minutes"', f'"{n + 11} minutes"')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1 and len(data["files"]) == 10
    assert all(code("window-changed") in [f["code"] for f in file["findings"]]
               for file in data["files"])


def test_unknown_ref_is_a_usage_error(repo: Repo, capsys) -> None:
    assert main(["check", "--base", "origin/nope"]) == 2
    err = capsys.readouterr().err
    assert "origin/nope" in err and "Traceback" not in err


def test_outside_a_repository_is_a_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert main(["check", "--base", "HEAD"]) == 2
    assert "not inside a git repository" in capsys.readouterr().err


def test_no_progress_bar_when_piped(repo: Repo) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    result = subprocess.run(["streamlint", "check", "--base", "HEAD"], cwd=repo.path,
                            capture_output=True, text=True, check=False,
                            env={**_env(), "CI": ""})
    assert result.returncode == 1
    assert result.stderr == ""


def _env() -> dict[str, str]:
    import os
    import sys

    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def test_deliberate_checkpoint_reset_is_a_note(repo: Repo, capsys) -> None:
    # A new checkpoint plus the old checkpoint's committed offsets: the documented way out.
    repo.edit("jobs/revenue.py", 'f"{CHECKPOINTS}/revenue"', 'f"{CHECKPOINTS}/revenue_v2"')
    repo.edit("jobs/revenue.py", '"startingOffsets": "earliest"',
              '"startingOffsets": """{"payments.v1":{"0":91234,"1":90876}}"""')
    repo.edit("jobs/revenue.py", 'F.window("paid_at", "10 minutes")',
              'F.window("paid_at", "15 minutes")')
    status, data = run_json(capsys, "--base", "HEAD")
    found = codes(data)
    assert code("checkpoint-reset-with-offsets") in found
    assert code("checkpoint-location-changed") not in found
    # On a new checkpoint the state starts empty, so the wider window is no longer a break.
    assert code("window-changed") not in found
    assert status == 0 and data["verdict"] == "compatible"


def test_new_checkpoint_without_positions_stays_an_error(repo: Repo, capsys) -> None:
    repo.edit("jobs/revenue.py", 'f"{CHECKPOINTS}/revenue"', 'f"{CHECKPOINTS}/revenue_v2"')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1 and code("checkpoint-location-changed") in codes(data)


def test_per_path_spark_version(repo: Repo, capsys) -> None:
    old = ('a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")\n'
           'a.writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")\n')
    new = ('a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")\n'
           'b = spark.readStream.schema("id LONG").name("events_b").json("/in/b")\n'
           'a.unionByName(b).writeStream.format("delta")'
           '.option("checkpointLocation", "/chk/n").start("/t/n")\n')
    repo.put("jobs/v4/named.py", old)
    repo.put("jobs/v3/named.py", old)
    repo.commit("named sources")
    repo.put("jobs/v4/named.py", new)
    repo.put("jobs/v3/named.py", new)
    repo.put("pyproject.toml", '[tool.streamlint]\nspark-version = "3.5"\n\n'
             '[[tool.streamlint.overrides]]\npaths = ["jobs/v4"]\nspark-version = "4.2"\n')
    status, data = run_json(capsys, "--base", "HEAD")
    verdicts = {f["path"]: f["verdict"] for f in data["files"]}
    # Spark 4.2 names sources, so adding a named one keeps the checkpoint (see test_config).
    on_4_2 = next(r.verdict for r in load_rules() if r.name == "named-source-added")
    assert on_4_2 != "incompatible"
    assert verdicts == {"jobs/v3/named.py": "incompatible", "jobs/v4/named.py": on_4_2}


class _Terminal:
    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.text = ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_progress_bar_only_on_a_terminal_outside_ci(repo: Repo, monkeypatch) -> None:
    from streamlint.workflow import check as check_module
    from streamlint.workflow import pool

    monkeypatch.delenv("CI", raising=False)
    terminal = _Terminal(tty=True)
    monkeypatch.setattr("sys.stderr", terminal)
    assert pool.show_progress()
    monkeypatch.setenv("CI", "true")
    assert not pool.show_progress()
    monkeypatch.delenv("CI")
    monkeypatch.setattr("sys.stderr", _Terminal(tty=False))
    assert not pool.show_progress()

    monkeypatch.setattr("sys.stderr", terminal)
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    repo.edit("jobs/revenue.py", '"1 minute"', '"30 seconds"')
    outcome = check_module.check("HEAD", progress=True)
    assert len(outcome.reports) == 2
    assert "] 1/2 jobs" in terminal.text and "] 2/2 jobs" in terminal.text
    assert terminal.text.endswith("\r")  # the bar erases itself before the report prints


def test_unreadable_file_in_the_pool_is_reported_with_its_line(repo: Repo, capsys) -> None:
    for n in range(9):
        repo.put(f"jobs/gen/revenue_{n}.py", JOBS / "kafka_revenue.py")
    repo.put("jobs/gen/broken.py", "q = spark.readStream.load()\nq.writeStream.start(\n")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 2 and len(data["files"]) == 9
    [error] = data["errors"]
    assert (error["path"], error["line"]) == ("jobs/gen/broken.py", 2)


def test_a_crash_on_one_file_is_an_error_for_that_file_only(repo: Repo, capsys,
                                                              monkeypatch) -> None:
    from streamlint.workflow import pool

    real = pool.extract_text

    def flaky(text: str, path: str, project=None):
        if path == "jobs/revenue.py":
            raise RuntimeError("boom")
        return real(text, path, project)

    monkeypatch.setattr(pool, "extract_text", flaky)
    monkeypatch.setattr(pool, "extract_version", flaky)  # a modified file
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    repo.edit("jobs/revenue.py", '"1 minute"', '"30 seconds"')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 2 and [f["path"] for f in data["files"]] == ["jobs/orders.py"]
    assert "RuntimeError: boom" in data["errors"][0]["message"]


def test_a_path_that_does_not_exist_is_an_error(repo: Repo, capsys) -> None:
    # A mistyped path used to match no change and pass: "0 job files compared", exit 0.
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / "jobs" / "orders.py")
    assert main(["check", "--base", "HEAD", "jobs/ordres.py"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (err,) = captured.err.strip().splitlines()
    assert "jobs/ordres.py: no such file or folder" in err
    # A deleted job is not on disk but is at the base: it is checked, not refused.
    (repo.path / "jobs" / "revenue.py").unlink()
    status, data = run_json(capsys, "--base", "HEAD", "jobs/revenue.py")
    assert status == 0
    assert [(f["path"], f["status"]) for f in data["files"]] == [("jobs/revenue.py", "deleted")]
    # A bad ref is the error reported, before any path.
    assert main(["check", "--base", "nope", "jobs/ordres.py"]) == 2
    assert "'nope'" in capsys.readouterr().err


def test_a_job_with_a_line_break_in_its_name_is_compared(repo: Repo, capsys) -> None:
    # `git cat-file --batch` reads one path per line: this file's old version went missing,
    # every query looked new, and the incompatible window change passed as compatible.
    name = "jobs/orders\nv2.py"
    repo.put(name, EXAMPLES / "orders" / "old.py")
    repo.commit("a job with an unusual name")
    shutil.copy(EXAMPLES / "orders" / "new.py", repo.path / name)
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    [file] = data["files"]
    assert (file["path"], file["status"]) == (name, "modified")
    assert code("window-changed") in codes(data)
    repo.commit("the change")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1 and code("window-changed") in codes(data)


def test_a_big_or_binary_module_that_is_no_job_is_skipped(repo: Repo, capsys) -> None:
    # A changed generated module over the 2 MB job limit (or not UTF-8) used to fail the
    # whole check (exit 2) though it mentions neither readStream nor writeStream.
    repo.put("lib/schema_pb2.py", "".join(f"FIELD_{n} = {n}\n" for n in range(250_000)))
    (repo.path / "lib" / "blob.py").write_bytes(b"DATA = b'\xff\xfe'\n")
    assert (repo.path / "lib" / "schema_pb2.py").stat().st_size > 2_000_000
    status, data = run_json(capsys, "--base", "HEAD")
    assert (status, data["files"], data["errors"]) == (0, [], [])
    # A job of that size is still refused, by name.
    repo.put("jobs/huge.py", (JOBS / "kafka_revenue.py").read_text() + "x = 1\n" * 400_000)
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 2 and [e["path"] for e in data["errors"]] == ["jobs/huge.py"]
