"""The extractor's shortcuts give libcst's own answers: its parse, its code for every node."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst._nodes.base import CSTCodegenError

from streamlint.extract.parsing import parse_module
from streamlint.extract.positions import index_module

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


class _EveryNode(cst.CSTVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.append(node)
        return True


@pytest.mark.parametrize("path", JOBS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_node_text_is_its_own_code(path: Path) -> None:
    module = parse_module(path.read_text(encoding="utf-8"))
    index = index_module(module)
    visitor = _EveryNode()
    module.visit(visitor)
    compared = 0
    for node in visitor.nodes:
        try:
            expected = module.code_for_node(node)
        except CSTCodegenError:  # e.g. an annotation only its parent can write
            continue
        text = index.code(node)
        if isinstance(node, cst.If):
            assert text is None  # an `elif` is written by its parent: left to libcst
            continue
        assert text is not None
        assert text.split() == expected.split(), type(node).__name__
        compared += 1
    assert compared > 100
