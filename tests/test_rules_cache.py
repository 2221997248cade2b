"""The rules cache: the same tables and rules with or without it, and a broken cache is ignored."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from streamlint.rulebook import book
from streamlint.rulebook.book import read_tables, rules_dir


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("STREAMLINT_NO_CACHE", raising=False)
    return tmp_path / "streamlint"


def test_cache_is_written_and_gives_the_same_tables(cache_home: Path) -> None:
    first = read_tables(rules_dir())
    files = list(cache_home.glob("rules-*.marshal"))
    assert len(files) == 1
    assert read_tables(rules_dir()) == first
    assert [family for family, _ in first] == sorted(p.stem for p in rules_dir().glob("*.toml"))


def test_corrupt_cache_is_ignored(cache_home: Path) -> None:
    expected = read_tables(rules_dir())
    paths = list(cache_home.glob("rules-*.marshal"))
    assert paths
    for path in paths:
        path.write_bytes(b"\x80not marshal data")
    book._read.cache_clear()
    assert read_tables(rules_dir()) == expected


def test_edited_rules_invalidate_the_cache(cache_home: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "x.toml").write_text('[[rule]]\ncode = "XX01"\n')
    assert read_tables(rules)[0][1]["rule"][0]["code"] == "XX01"
    (rules / "x.toml").write_text('[[rule]]\ncode = "XX002"\n')
    assert read_tables(rules)[0][1]["rule"][0]["code"] == "XX002"


def test_old_caches_are_pruned_when_a_new_one_is_written(cache_home: Path) -> None:
    cache_home.mkdir(parents=True)
    # oldest first: earlier versions' JSON and pickle caches, then marshal ones, a second apart
    old = [cache_home / "rules-0badc0de.json", cache_home / "rules-0badf00d.pickle"]
    old += [cache_home / f"rules-{n:08x}.marshal" for n in range(book.KEEP + 3)]
    for age, path in enumerate(old):
        path.write_bytes(b"old")
        os.utime(path, ns=(age * 10**9, age * 10**9))
    other = cache_home / "versions"
    other.mkdir()
    book._read.cache_clear()
    read_tables(rules_dir())
    left = set(cache_home.glob("rules-*"))
    written = left - set(old)
    assert len(written) == 1 and written.pop().suffix == ".marshal"
    # the written one and the KEEP - 1 newest old ones are kept
    assert len(left) == book.KEEP
    assert left & set(old) == set(old[-(book.KEEP - 1):])
    assert other.is_dir()


def test_unwritable_cache_and_opt_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: the cache dir cannot exist
    assert read_tables(rules_dir())
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    assert read_tables(rules_dir())
    assert not (tmp_path / "home").exists()


def test_rules_built_from_the_cache_are_the_rules_built_without_it(
        cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for cached in (book._read, book.load_rules, book.own_rules):
        cached.cache_clear()
    built = (book.load_rules(), book.own_rules())  # built, checked and written to the cache
    assert list(cache_home.glob("rules-*.marshal"))
    for cached in (book._read, book.load_rules, book.own_rules):
        cached.cache_clear()
    assert (book.load_rules(), book.own_rules()) == built  # read back from the cache
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    for cached in (book._read, book.load_rules, book.own_rules):
        cached.cache_clear()
    assert (book.load_rules(), book.own_rules()) == built
    for cached in (book._read, book.load_rules, book.own_rules):
        cached.cache_clear()
