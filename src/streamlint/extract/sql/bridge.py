"""The one bridge from a model expression to the extractor's `Col`.

Today `Col` carries canonical text, spelled the way `columns.py` spells DataFrame code
(`col(x)`, `sum(col(amount))`, `(col(a) == col(b))`, `col(x).isNull()`), so SQL and the same
query written with DataFrame methods give equal operators. When `Col` carries the typed
expression itself, `to_col` becomes `Col(expr=expr)` and the rest of this module goes.
"""

from __future__ import annotations

from streamlint.extract.columns import unknown_text
from streamlint.extract.values import Col
from streamlint.model import Unknown
from streamlint.model.expr import (
    Alias,
    Binary,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Field,
    Interval,
    Literal,
    Star,
    Unary,
    Unresolved,
    output_name,
    refs,
    render_interval,
    unaliased,
)

_OPS = {"=": "==", "and": "&", "or": "|"}
_METHODS = {"isnull": "isNull", "isnotnull": "isNotNull", "in": "isin", "like": "like",
            "rlike": "rlike", "ilike": "ilike", "between": "between", "startswith": "startswith",
            "endswith": "endswith", "contains": "contains", "asc": "asc", "desc": "desc"}
# pyspark.sql.functions' spelling where it differs from the model's canonical name.
_DATAFRAME_NAMES = {"stddev": "stddev_samp"}
_DISTINCT_NAMES = {"count": "count_distinct", "sum": "sum_distinct"}


def to_col(expr: Expr) -> Col:
    """The extractor's column for a model expression (its alias is the column's name)."""
    inner = _commuted(unaliased(expr))
    names = frozenset(refs(expr))
    if isinstance(inner, Star):
        star = "*" if inner.qualifier is None else f"{inner.qualifier}.*"
        return Col(star if inner.qualifier is None else f"col({star})",
                   None if inner.qualifier is None else star, refs=frozenset({star}))
    name = output_name(expr)
    if isinstance(inner, Call) and inner.function not in _METHODS:
        return Col(text(inner), name, function=function_name(inner),
                   args=tuple(text(a) for a in inner.args), refs=names)
    if isinstance(inner, Cast):
        return Col(text(inner), name, function="cast", args=(text(inner.operand), inner.to),
                   refs=names)
    return Col(text(inner), name, refs=names)


def _commuted(expr: Expr) -> Expr:
    """Conjuncts, disjuncts and the columns either side of `=` in one order. The diff
    compares this text, and Spark reads `a = b AND c` as `c AND b = a` (a join
    condition's conjuncts swapped is the same join); once `Col` carries the tree, the diff
    compares `conjuncts()` instead."""
    if not isinstance(expr, Binary):
        return expr
    if expr.op in ("and", "or"):
        parts = sorted((_commuted(p) for p in _chain(expr, expr.op)), key=text)
        result = parts[0]
        for part in parts[1:]:
            result = Binary(expr.op, result, part)
        return result
    if expr.op in ("=", "!=", "<=>") and isinstance(expr.left, Column) and isinstance(
            expr.right, Column):
        left, right = sorted((_commuted(expr.left), _commuted(expr.right)), key=text)
        return Binary(expr.op, left, right)
    return Binary(expr.op, _commuted(expr.left), _commuted(expr.right))


def _chain(expr: Expr, op: str) -> list[Expr]:
    if isinstance(expr, Binary) and expr.op == op:
        return _chain(expr.left, op) + _chain(expr.right, op)
    return [expr]


def function_name(node: Call) -> str:
    if node.distinct and node.function in _DISTINCT_NAMES:
        return _DISTINCT_NAMES[node.function]
    return _DATAFRAME_NAMES.get(node.function, node.function)


def text(expr: Expr) -> str:  # noqa: C901 - one branch per node kind
    """`columns.py`'s canonical text for the expression."""
    if isinstance(expr, Column):
        return f"col({expr.qualifier}.{expr.name})" if expr.qualifier else f"col({expr.name})"
    if isinstance(expr, Star):
        return "*" if expr.qualifier is None else f"col({expr.qualifier}.*)"
    if isinstance(expr, Literal):
        return repr(expr.value)
    if isinstance(expr, Interval):
        return repr(render_interval(expr.micros))
    if isinstance(expr, Alias):
        return text(expr.operand)
    if isinstance(expr, Call):
        args = [text(a) for a in expr.args]
        if expr.function in _METHODS and args:
            return f"{args[0]}.{_METHODS[expr.function]}({', '.join(args[1:])})"
        prefix = "DISTINCT " if expr.distinct and expr.function not in _DISTINCT_NAMES else ""
        return f"{function_name(expr)}({prefix}{', '.join(args)})"
    if isinstance(expr, Cast):
        return f"cast({text(expr.operand)} AS {expr.to})"
    if isinstance(expr, Binary):
        if expr.op == "<=>":
            return f"{text(expr.left)}.eqNullSafe({text(expr.right)})"
        return f"({text(expr.left)} {_OPS.get(expr.op, expr.op)} {text(expr.right)})"
    if isinstance(expr, Unary):
        return f"{'~' if expr.op == 'not' else expr.op}{text(expr.operand)}"
    if isinstance(expr, Field):
        return f"{text(expr.operand)}[{expr.key!r}]"
    if isinstance(expr, Case):
        whens = ".".join(f"when({text(c)}, {text(v)})" for c, v in expr.branches)
        default = f".otherwise({text(expr.default)})" if expr.default is not None else ""
        return whens + default
    assert isinstance(expr, Unresolved)
    return unknown_text(Unknown(expr.code))
