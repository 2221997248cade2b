"""The version is written once and every pin the docs show is a tag a release makes from it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import streamlint
from streamlint.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
VERSION = streamlint.__version__


def test_the_version_is_written_once() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "src/streamlint/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)


def test_version_option_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"streamlint {VERSION}\n"


def test_changelog_has_a_section_for_the_version() -> None:
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert headings and headings[0] == VERSION  # newest first


def test_documented_pins_are_the_release_tag_or_a_commit() -> None:
    readme = "\n".join((ROOT / name).read_text() for name in ("README.md", "docs/ci.md"))
    tags = re.findall(r"(?:rev: |@)(v\d+\.\d+\.\d+)", readme)
    assert tags and set(tags) == {f"v{VERSION}"}
    assert re.search(r"^    rev: [0-9a-f]{40}\b", readme, re.MULTILINE)  # pinned by commit
