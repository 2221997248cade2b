"""The one bridge from a model expression to the extractor's `Col`.

`Col` carries the typed expression itself, so SQL and the same query written with DataFrame
methods give equal operators as long as both front ends produce the canonical trees
(`streamlint.model.expr`). An alias becomes the column's name, as `.alias()` does.
"""

from __future__ import annotations

from streamlint.extract.spark_values import Col
from streamlint.model.expr import Alias, Expr, output_name, render, unaliased


def to_col(expr: Expr) -> Col:
    """The extractor's column for a model expression (its alias is the column's name)."""
    if isinstance(expr, Alias):
        return to_col(expr.operand).aliased(expr.name)
    return Col(expr, output_name(expr))


def output_column(expr: Expr) -> str:
    """The name Spark gives a select item's or an aggregate's result: its alias or its own
    name, else its canonical text (as `frames.finish_aggregation` names an output)."""
    return output_name(expr) or render(unaliased(expr))
