"""`parse_expression`: one SQL expression as a model expression, sqlglot loaded only when
the reader of simple expressions (`simple`) cannot read it."""

from __future__ import annotations

from streamlint.extract.sql.simple import parse_simple
from streamlint.model.expr import Expr


def parse_expression(text: str) -> Expr:
    """One SQL expression (a select item keeps its alias as `Alias`). Never raises: SQL that
    cannot be read is `Unresolved(text)`."""
    expr = parse_simple(text)
    if expr is not None:
        return expr
    from streamlint.extract.sql import expressions

    return expressions.parse_expression(text)
