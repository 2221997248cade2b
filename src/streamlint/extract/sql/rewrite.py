"""Rebuilding a model expression with some subtrees replaced (HAVING over `agg`'s outputs)."""

from __future__ import annotations

from streamlint.model.expr import Alias, Binary, Call, Case, Cast, Expr, Field, Unary


def substitute(expr: Expr, mapping: dict[Expr, Expr]) -> Expr:
    """`expr` with every subtree equal to a key of `mapping` replaced by its value."""
    if expr in mapping:
        return mapping[expr]
    if isinstance(expr, Call):
        return Call(expr.function, tuple(substitute(a, mapping) for a in expr.args),
                    expr.distinct)
    if isinstance(expr, Alias):
        return Alias(substitute(expr.operand, mapping), expr.name)
    if isinstance(expr, Cast):
        return Cast(substitute(expr.operand, mapping), expr.to)
    if isinstance(expr, Binary):
        return Binary(expr.op, substitute(expr.left, mapping), substitute(expr.right, mapping))
    if isinstance(expr, Unary):
        return Unary(expr.op, substitute(expr.operand, mapping))
    if isinstance(expr, Field):
        return Field(substitute(expr.operand, mapping), expr.key)
    if isinstance(expr, Case):
        branches = tuple((substitute(c, mapping), substitute(v, mapping))
                         for c, v in expr.branches)
        default = None if expr.default is None else substitute(expr.default, mapping)
        return Case(branches, default)
    return expr
