"""The pre-commit entry point: staged job files against HEAD, in a real git repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from streamlint.precommit import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "dev")
    shutil.copy(EXAMPLES / "orders" / "old.py", tmp_path / "job.py")
    (tmp_path / "util.py").write_text("def helper():\n    return 1\n")
    git("add", ".")
    git("commit", "-qm", "first")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_incompatible_staged_change_fails(repo: Path, capsys) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", repo / "job.py")
    assert main(["job.py", "util.py"]) == 1
    out = capsys.readouterr().out
    assert "error[AG04]" in out and "HEAD:job.py" in out


def test_compatible_change_passes(repo: Path) -> None:
    text = (repo / "job.py").read_text().replace('"1 minute"', '"30 seconds"')
    (repo / "job.py").write_text(text)
    assert main(["job.py"]) == 0


def test_new_job_file_has_nothing_to_restart_from(repo: Path) -> None:
    shutil.copy(EXAMPLES / "clickstream" / "new.py", repo / "clicks.py")
    assert main(["clicks.py"]) == 0


def test_unreadable_file_is_exit_2_without_traceback(repo: Path, capsys) -> None:
    (repo / "job.py").write_text("df = spark.readStream.load(\n")
    assert main(["job.py"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("job.py:") and "Traceback" not in err
