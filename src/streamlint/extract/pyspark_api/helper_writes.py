"""The writes of the repository's functions a batch function calls by name: each read in its own
module, with the helpers it reaches there."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from streamlint.extract.identity import no_repository
from streamlint.extract.positions import index_module
from streamlint.extract.pyspark_api.batch_writes import batch_writes, calls_in
from streamlint.extract.reach import reach_of
from streamlint.model import BatchWrite


def imported_writes(nodes: Iterable[cst.CSTNode], modules: Iterable[tuple[str, int, str]]
                    ) -> tuple[BatchWrite, ...]:
    """The writes of the functions `nodes` call (by name, or as `module.name`) that are
    defined in the repository modules they import (`modules`: their code), with the helpers
    those reach in their own module."""
    called = {_called(n.func) for node in nodes for n in calls_in(node)} - {None}
    found: list[BatchWrite] = []
    for _, _, text in modules:
        if not text:
            continue
        try:
            module = cst.parse_module(text)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            continue
        index = index_module(module)
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value in called:
                reach = reach_of(index, statement, no_repository, "")
                if reach is None:
                    continue
                helpers = [s for s in reach.statements
                           if isinstance(s, cst.FunctionDef | cst.ClassDef)]
                others = [s for s in reach.statements if s not in helpers]
                found.extend(batch_writes([*reach.nodes, *helpers], others))
    return tuple(found)


def _called(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None
