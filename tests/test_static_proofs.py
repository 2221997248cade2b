"""Proofs that the static path touches nothing, over every job file of the repository's corpora.

Each test runs streamlint in a fresh Python process under an audit hook (tests/audited_run.py)
and asserts the hook saw nothing: no file written outside streamlint's own cache, no socket,
no process (git only, in `check`), no pyspark or py4j import, no module loaded from the
user's folders, no code compiled from a user file executed. Bytecode writing is off in that
process (PYTHONDONTWRITEBYTECODE): Python caching streamlint's own modules is not streamlint
writing, and an installed streamlint has its bytecode already.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPORA = [ROOT / "tests" / "jobs", ROOT / "tests" / "corpus", ROOT / "examples",
           ROOT / "tests" / "realworld"]


def job_files() -> list[Path]:
    return sorted(p for folder in CORPORA if folder.is_dir() for p in folder.rglob("*.py"))


def pairs() -> list[tuple[Path, Path]]:
    """Every old/new pair of the corpora, and every other job file against itself."""
    found, paired = [], set()
    for old in job_files():
        new = old.with_name("new.py")
        if old.name == "old.py" and new.exists():
            found.append((old, new))
            paired.update((old, new))
    found += [(p, p) for p in job_files() if p not in paired]
    return found


def audited(tmp_path: Path, runs: list[tuple[Path, list[str]]], user: list[Path],
            allowed: list[str], fork: bool = False) -> dict:
    cache = tmp_path / "xdg-cache"
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({
        "runs": [[str(cwd), argv] for cwd, argv in runs], "user_paths": [str(u) for u in user],
        "allowed_programs": allowed, "cache": str(cache / "streamlint"), "fork": fork,
        "log": str(tmp_path / "forked-workers.log")}))
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": str(ROOT / "src")}
    env.pop("STREAMLINT_NO_CACHE", None)  # the cache is written, and must be the only write
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "audited_run.py"),
                           str(spec)], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_corpus_has_jobs() -> None:
    # Not a vacuous proof: the corpora hold hundreds of job files.
    assert len(job_files()) > 300


@pytest.mark.slow
def test_diff_touches_nothing(tmp_path: Path) -> None:
    runs = [(tmp_path, ["diff", str(old), str(new), "--format", fmt])
            for i, (old, new) in enumerate(pairs())
            for fmt in [("text", "json", "github", "sarif", "markdown")[i % 5]]]
    result = audited(tmp_path, runs, [f for f in CORPORA if f.is_dir()], [])
    assert result["seen"] == []
    assert len(result["codes"]) == len(runs) and set(result["codes"]) <= {0, 1}, (
        sorted(set(result["codes"])))
    assert (tmp_path / "xdg-cache" / "streamlint").is_dir()  # the one write it may make


@pytest.mark.slow
def test_check_touches_nothing_but_runs_git(tmp_path: Path) -> None:
    """`check` in a repository: the base commit holds every old version, the work tree every
    new one (and a helper module the jobs could import, which must not be imported)."""
    if shutil.which("git") is None:
        pytest.fail("git is needed for `check`")
    repo = tmp_path / "repo"
    repo.mkdir()
    chosen = pairs()
    (repo / "helpers.py").write_text("import socket\nsocket.create_connection(('10.0.0.1', 1))\n")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})

    git("init", "-q", "-b", "main")
    for i, (old, _) in enumerate(chosen):
        text = old.read_text(errors="replace")
        (repo / f"job_{i}.py").write_text("import helpers\n" + text if i % 7 == 0 else text)
    git("add", "-A")
    git("commit", "-q", "-m", "old")
    for i, (_, new) in enumerate(chosen):
        (repo / f"job_{i}.py").write_text(new.read_text(errors="replace"))
    before = _tree(repo)
    result = audited(tmp_path, [(repo, ["check", "--base", "HEAD", "--format", fmt])
                                for fmt in ("text", "json", "sarif")], [repo], ["git"],
                     fork=True)
    assert result["seen"] == []
    assert set(result["codes"]) <= {0, 1}, result["codes"]
    assert result["workers"] >= 2  # the pool ran, its workers under the hook too
    assert _tree(repo) == before


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".git" not in p.parts} | {
        "HEAD": subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                               capture_output=True, check=True).stdout}


def test_the_hook_sees_what_it_looks_for(tmp_path: Path) -> None:
    """A control: told that streamlint's own folder is user code, the hook reports the
    modules loaded from it, so an empty report above is not a hook that sees nothing."""
    old, new = pairs()[0]
    result = audited(tmp_path, [(tmp_path, ["diff", str(old), str(new)])], [ROOT / "src"], [])
    assert ["module", "streamlint.cli"] in result["seen"]
