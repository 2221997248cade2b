"""Parsing without libcst's per-node validation gives libcst's own tree, errors included."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from streamlint.extract.parsing import parse_module

ROOT = Path(__file__).resolve().parent.parent
JOBS = sorted((ROOT / "tests" / "jobs").glob("*.py")) + sorted((ROOT / "examples").glob("*/*.py"))


@pytest.mark.parametrize("path", JOBS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parse_without_validation_builds_the_same_tree(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert parse_module(text).deep_equals(cst.parse_module(text))


def test_validation_is_back_after_parsing() -> None:
    parse_module("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_a_syntax_error_is_still_one() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(a=1, b): pass\n")
