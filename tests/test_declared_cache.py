"""The declarations of TOML files (pyproject.toml, lock files) kept in the user's cache: the
same answer with or without it, a changed file read anew, a broken cache ignored, nothing
written under STREAMLINT_NO_CACHE."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from streamlint.workflow import declared as module
from streamlint.workflow.declared import Declaration, declared

PINNED = '[project]\ndependencies = ["pandas", "pyspark==4.0.1"]\n'
RANGE = '[project]\ndependencies = ["pyspark>=3.5"]\n'


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("STREAMLINT_NO_CACHE", raising=False)
    return tmp_path / "streamlint"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the TOML readers were given (a cache hit reads none)."""
    seen: list[str] = []
    for name in ("read_pyproject", "read_toml_lock"):
        original = getattr(module, name)

        def reader(text: str, path: str, original=original) -> Declaration | None:
            seen.append(text)
            return original(text, path)

        reader.__name__ = name
        monkeypatch.setattr(module, name, reader)
    return seen


def test_a_pin_is_read_once_then_remembered(cache_home: Path, reads: list[str]) -> None:
    files = {"/repo/pyproject.toml": PINNED}
    first = declared("/repo/job.py", files)
    assert first == Declaration("4.0.1", "", "pyspark==4.0.1", "/repo/pyproject.toml")
    assert len(list(cache_home.glob("declared-*.marshal"))) == 1
    assert declared("/repo/job.py", files) == first
    assert reads == [PINNED]


def test_no_pin_is_remembered_too(cache_home: Path, reads: list[str]) -> None:
    lock = '[[package]]\nname = "pandas"\nversion = "2.2.0"\n'
    files = {"/repo/pyproject.toml": RANGE, "/repo/uv.lock": lock}
    assert declared("/repo/job.py", files) is None
    assert declared("/repo/job.py", files) is None
    assert reads == [RANGE, lock]


def test_a_changed_file_is_read_again(cache_home: Path, reads: list[str]) -> None:
    assert declared("/repo/job.py", {"/repo/pyproject.toml": PINNED}) is not None
    assert declared("/repo/job.py", {"/repo/pyproject.toml": RANGE}) is None
    # the same text at another path names that path
    moved = declared("/other/job.py", {"/other/pyproject.toml": PINNED})
    assert moved is not None and moved.path == "/other/pyproject.toml"
    assert reads == [PINNED, RANGE, PINNED]


def test_a_broken_cache_is_ignored(cache_home: Path) -> None:
    files = {"/repo/pyproject.toml": PINNED}
    expected = declared("/repo/job.py", files)
    for entry in cache_home.glob("declared-*.marshal"):
        entry.write_bytes(b"\x00not marshal")
    assert declared("/repo/job.py", files) == expected
    for entry in cache_home.glob("declared-*.marshal"):
        entry.write_bytes(marshal.dumps(("another key", ("9.9", "", "x", "y"))))
    assert declared("/repo/job.py", files) == expected


def test_no_cache_writes_nothing(cache_home: Path, monkeypatch: pytest.MonkeyPatch,
                                 reads: list[str]) -> None:
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    files = {"/repo/pyproject.toml": PINNED}
    assert declared("/repo/job.py", files) == declared("/repo/job.py", files)
    assert not cache_home.exists()
    assert reads == [PINNED, PINNED]
