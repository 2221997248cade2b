"""A real `pre-commit run`: this checkout installed as a hook repository, in a git repository.

pre-commit builds its own virtualenv for the hook from the hook repository (pip install of
streamlint and libcst, no pyspark), once for the module; then a compatible and an
incompatible staged change go through `pre-commit run`, exactly as on a developer's machine.
The hook repository is a fresh git repository made from this working tree (pre-commit needs
a commit to clone), so uncommitted work is what gets tested. prek (pre-commit's drop-in
reimplementation) reads the same hook definition; its run is tested where it is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import Repo, join_notebook

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
HOOK_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "src", "rules")


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=False, timeout=600)


def prek(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    found = shutil.which("prek") or shutil.which("prek", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("prek is not installed")
    env = {**os.environ, "PREK_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run([found, *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=False, timeout=600)


@pytest.fixture(scope="module")
def hook_setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """(hook repository, its commit, pre-commit's home with the hook's environment built)."""
    hook = tmp_path_factory.mktemp("hook-repo")
    for name in HOOK_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, hook / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(source, hook / name)
    repo = Repo(hook)
    repo.commit("streamlint as a hook repository")
    return hook, repo.git("rev-parse", "HEAD").strip(), tmp_path_factory.mktemp("pre-commit")


@pytest.fixture
def job_repo(tmp_path: Path, hook_setup: tuple[Path, str, Path]) -> Repo:
    hook, rev, _ = hook_setup
    repo = Repo(tmp_path)
    repo.put(".pre-commit-config.yaml",
             f"repos:\n  - repo: {hook}\n    rev: {rev}\n    hooks:\n      - id: streamlint\n")
    repo.put("jobs/orders.py", EXAMPLES / "orders" / "old.py")
    repo.put("lib/util.py", "def helper():\n    return 1\n")
    repo.commit("jobs as they run today")
    return repo


@pytest.mark.slow
def test_incompatible_staged_change_fails_the_hook(job_repo: Repo, hook_setup) -> None:
    shutil.copy(EXAMPLES / "orders" / "new.py", job_repo.path / "jobs" / "orders.py")
    job_repo.git("add", "jobs/orders.py")
    result = pre_commit(job_repo.path, hook_setup[2], "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "streamlint (streaming checkpoint compatibility)" in result.stdout
    assert "Failed" in result.stdout
    assert "error[AG04] window-changed" in result.stdout
    assert "HEAD:jobs/orders.py" in result.stdout


def test_compatible_staged_change_passes_and_unstaged_breakage_is_ignored(
        job_repo: Repo, hook_setup) -> None:
    job_repo.edit("jobs/orders.py", 'processingTime="1 minute"', 'processingTime="2 minutes"')
    job_repo.git("add", "jobs/orders.py")
    # An incompatible edit left unstaged is not part of the commit: pre-commit stashes it.
    text = (job_repo.path / "jobs" / "orders.py").read_text()
    (job_repo.path / "jobs" / "orders.py").write_text(
        text.replace('F.window("event_time", "5 minutes")', 'F.window("event_time", "1 hour")'))
    result = pre_commit(job_repo.path, hook_setup[2], "run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout
    assert "1 hour" in (job_repo.path / "jobs" / "orders.py").read_text()  # restored


def test_hook_environment_has_no_pyspark(job_repo: Repo, hook_setup) -> None:
    home = hook_setup[2]
    result = pre_commit(job_repo.path, home, "install-hooks")
    assert result.returncode == 0, result.stdout + result.stderr
    found = [p for p in home.rglob("site-packages") if (p / "streamlint").exists()]
    assert found
    assert not any((p / "pyspark").exists() for p in found)
    assert any((p / "libcst").exists() for p in found)


def stage_join_type_change(repo: Repo) -> None:
    """A notebook committed with an outer join, staged with an inner one (JN05)."""
    repo.put("notebooks/ads.ipynb", join_notebook("leftOuter"))
    repo.commit("a notebook")
    repo.put("notebooks/ads.ipynb", join_notebook("inner"))
    repo.git("add", "notebooks/ads.ipynb")


@pytest.mark.slow
def test_notebook_change_fails_the_hook(job_repo: Repo, hook_setup) -> None:
    stage_join_type_change(job_repo)
    result = pre_commit(job_repo.path, hook_setup[2], "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Skipped" not in result.stdout and "Failed" in result.stdout
    assert "error[JN05] join-inner-outer-changed" in result.stdout
    assert "HEAD:notebooks/ads.ipynb" in result.stdout


@pytest.mark.slow
def test_prek_runs_the_same_hook(job_repo: Repo, tmp_path_factory) -> None:
    stage_join_type_change(job_repo)
    result = prek(job_repo.path, tmp_path_factory.mktemp("prek"), "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "error[JN05] join-inner-outer-changed" in result.stdout
    assert "HEAD:notebooks/ads.ipynb" in result.stdout
