"""The run-time conditions a query is started under (`if mode == "A": ...start()`).

Queries under conditions no run meets together are alternatives (`model.exclusive`): the
statement runner records, for each branch of a run-time `if`, the value compared and the
literal it is compared with; a query started there carries them (`Sink.conditions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from streamlint.extract.symbolic import is_plain
from streamlint.extract.values import Env
from streamlint.model import Unknown

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


def compared_with_literal(interp: Interpreter, test: cst.BaseExpression, env: Env
                      ) -> tuple[str, str] | None:
    """(subject, value) of a run-time condition that compares a value known only at run
    time with a literal (`mode == "A"`, `args.sink == 'duckdb'`); None for any other."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return None
    operands = (test.left, test.comparisons[0].comparator)
    if not all(_pure(operand) for operand in operands):
        return None  # evaluated again here: no call, whose effects would happen twice
    sides = [interp.ev(operand, env) for operand in operands]
    known = [side for side in sides if is_plain(side) and isinstance(side, str | int)]
    unknown = [side for side in sides if isinstance(side, Unknown)]
    if len(known) != 1 or len(unknown) != 1 or isinstance(known[0], bool):
        return None
    return unknown[0].text, repr(known[0])


def _pure(node: cst.BaseExpression) -> bool:
    """A name, an attribute, a subscript or a literal made of those: evaluating it has no
    effect (no call)."""
    if isinstance(node, cst.Name | cst.SimpleString | cst.Integer | cst.Float):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    if isinstance(node, cst.Subscript):
        return _pure(node.value) and all(
            isinstance(e.slice, cst.Index) and _pure(e.slice.value) for e in node.slice)
    return False
