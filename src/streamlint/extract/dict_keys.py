"""The keys a dict known only at run time can hold, where the code limits them.

`{OPTS[k]: v for k, v in args.items() if k in OPTS}` takes its items from arguments only the
run knows, but each key is one of OPTS's values: a writer's `.options(**that)` sets none of
the options a restart depends on when none of those values is one (diff/sinks.py `sink_options`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from streamlint.extract.positions import children_of


def possible_keys(node: cst.DictComp, ev: Callable[[cst.BaseExpression], Any]
                  ) -> tuple[str, ...] | None:
    """The keys a dict comprehension over a run-time iterable can hold, where the code limits
    them to known strings: a key `KNOWN[k]` is one of KNOWN's values (any other `k` raises),
    a key `k` filtered by `if k in KNOWN` one of KNOWN's items. None where any key may be."""
    key, bound = node.key, _bound(node.for_in)
    if (isinstance(key, cst.Subscript) and len(key.slice) == 1
            and isinstance(key.value, cst.Name) and key.value.value not in bound):
        table = ev(key.value)
        if isinstance(table, dict) and table and all(isinstance(v, str) for v in table.values()):
            return tuple(sorted(set(table.values())))
    if isinstance(key, cst.Name) and node.for_in.inner_for_in is None:
        for clause in node.for_in.ifs:
            test = clause.test
            for part in _conjuncts(test):
                if (isinstance(part, cst.Comparison) and len(part.comparisons) == 1
                        and isinstance(part.comparisons[0].operator, cst.In)
                        and isinstance(part.left, cst.Name) and part.left.value == key.value):
                    known = ev(part.comparisons[0].comparator)
                    items = tuple(known) if isinstance(known, dict | tuple | frozenset) else ()
                    if items and all(isinstance(i, str) for i in items):
                        return tuple(sorted(set(items)))
    return None


def _bound(clause: cst.CompFor | None) -> set[str]:
    """The names the `for` clauses of a comprehension bind."""
    names: set[str] = set()
    while clause is not None:
        names |= {n.value for n in _names_in(clause.target)}
        clause = clause.inner_for_in
    return names


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    return [n for child in children_of(node) for n in _names_in(child)]


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts of `a and b and c` (each must hold), or the test itself."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]
