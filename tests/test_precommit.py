"""The pre-commit entry point: staged job files against HEAD, in a real git repository."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from gitrepo import join_notebook

from streamlint.cli.precommit import main
from streamlint.extract.config_files import CONFIG_SUFFIXES
from streamlint.policy.config import DEFAULT_INCLUDE
from streamlint.workflow.modules import is_config

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


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


def hook_selects(path: str) -> bool:
    """Whether pre-commit (or prek) passes this staged file to the hook: `files` is a
    Python `re.search`, `types: [file]` holds for every regular file."""
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook.get("types", ["file"]) == ["file"] and "types_or" not in hook
    assert "exclude" not in hook
    return re.search(hook["files"], path) is not None


def test_hook_is_given_every_file_check_reads() -> None:
    # Jobs (check's default include), and the modules and configuration files a job reads.
    for pattern in DEFAULT_INCLUDE:
        assert hook_selects("jobs/" + pattern.replace("*", "orders"))
    for suffix in CONFIG_SUFFIXES:
        path = f"conf/job{suffix}"
        assert is_config(path) and hook_selects(path), path
    assert hook_selects("notebooks/Bronze Ingest.py")  # a Databricks source export
    assert hook_selects("pkg/helpers.py")
    for other in ("README.md", "docs/diagram.png", "build.sbt", "jobs/ipynb"):
        assert not hook_selects(other), other


def test_notebook_join_type_change_fails(repo: Path, capsys) -> None:
    (repo / "ads.ipynb").write_text(join_notebook("leftOuter"))
    subprocess.run(["git", "add", "ads.ipynb"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "a notebook"], cwd=repo, check=True)
    (repo / "ads.ipynb").write_text(join_notebook("inner"))
    assert main(["ads.ipynb"]) == 1
    out = capsys.readouterr().out
    assert "error[JN05]" in out and "HEAD:ads.ipynb" in out


def test_staged_config_file_rejudges_the_job_that_reads_it(repo: Path, capsys) -> None:
    (repo / "conf").mkdir()
    (repo / "conf" / "topic.json").write_text('{"topic": "orders"}\n')
    (repo / "reader.py").write_text(
        "import json\n\nTOPIC = json.load(open('conf/topic.json'))['topic']\n"
        "df = spark.readStream.format('kafka').option('subscribe', TOPIC).load()\n"
        "df.writeStream.option('checkpointLocation', '/chk/r').toTable('t')\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "a job and its configuration"], cwd=repo, check=True)
    (repo / "conf" / "topic.json").write_text('{"topic": "orders_v2"}\n')
    assert hook_selects("conf/topic.json")
    assert main(["conf/topic.json"]) == 1
    assert "error[SO04]" in capsys.readouterr().out
