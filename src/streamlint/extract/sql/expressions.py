"""Spark SQL expressions as the model's typed trees (`streamlint.model.expr`).

`parse_expression("SUM(amount) AS total")` is the tree `F.sum("amount").alias("total")`
lowers to: the canonical forms of the model's docstring are produced here for SQL. Nothing
raises: SQL sqlglot cannot read, or a construct not lowered, is `Unresolved(text)`.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.errors import SqlglotError

from streamlint.extract.schema_text import normalize_type
from streamlint.extract.sql.dialect import StreamingSpark, parse_expr
from streamlint.model.expr import (
    WINDOW_FUNCTIONS,
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
    call,
    walk,
)

AGGREGATES = frozenset({
    "count", "sum", "avg", "min", "max", "first", "last", "collect_list", "collect_set",
    "approx_count_distinct", "count_distinct", "sum_distinct", "stddev", "stddev_pop",
    "var_samp", "var_pop", "bool_and", "bool_or", "max_by", "min_by", "percentile_approx",
    "percentile", "any_value", "count_if", "corr", "covar_pop", "covar_samp", "kurtosis",
    "skewness", "median", "mode", "array_agg", "approx_percentile", "bit_and", "bit_or",
    "bit_xor", "count_min_sketch", "histogram_numeric", "regr_count", "try_sum", "try_avg",
})
_BINARY = {
    exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
    exp.And: "and", exp.Or: "or", exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/",
    exp.Mod: "%", exp.NullSafeEQ: "<=>", exp.BitwiseAnd: "&", exp.BitwiseOr: "|",
    exp.BitwiseXor: "^",
}
_PREDICATES = {exp.Like: "like", exp.ILike: "ilike", exp.RegexpLike: "rlike"}
_MICROS = {"microsecond": 1, "millisecond": 1_000, "second": 1_000_000, "sec": 1_000_000,
           "minute": 60_000_000, "min": 60_000_000, "hour": 3_600_000_000,
           "day": 86_400_000_000, "week": 604_800_000_000}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+?)s?\b")


def parse_expression(text: str) -> Expr:
    """One SQL expression (a select item keeps its alias as `Alias`); never raises."""
    try:
        return lower(parse_expr(text))
    except (SqlglotError, ValueError, RecursionError):
        return Unresolved(" ".join(text.split()))


def duration(text: str) -> int | None:
    """'5 minutes', '1 hour 30 minutes', 'interval 10 seconds' in microseconds, or None."""
    body = text.strip().lower()
    body = body[len("interval"):].strip() if body.startswith("interval") else body
    total, end = 0, 0
    for match in _DURATION.finditer(body):
        if body[end:match.start()].strip():
            return None
        unit = _MICROS.get(match.group(2))
        if unit is None:
            return None
        total += round(float(match.group(1)) * unit)
        end = match.end()
    return total if end and not body[end:].strip() else None


def lower(node: exp.Expr) -> Expr:  # noqa: C901 - one branch per node kind
    """A parsed sqlglot expression as a model expression."""
    if isinstance(node, exp.Paren):
        return lower(node.this)
    if isinstance(node, exp.Alias):
        return Alias(lower(node.this), node.alias)
    if isinstance(node, exp.Column):
        return _column(node)
    if isinstance(node, exp.Star):
        return Star()
    if isinstance(node, exp.Literal):
        return Literal(node.this if node.is_string else _number(node.this))
    if isinstance(node, exp.Boolean):
        return Literal(bool(node.this))
    if isinstance(node, exp.Null):
        return Literal(None)
    if isinstance(node, exp.Interval):
        micros = _interval(node)
        return Interval(micros) if micros is not None else _unresolved(node)
    if isinstance(node, exp.Cast | exp.TryCast):
        return Cast(lower(node.this), normalize_type(node.to.sql(dialect=StreamingSpark)))
    if isinstance(node, exp.Not):
        inner = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return call("isnotnull", lower(inner.this))
        return Unary("not", lower(node.this))
    if isinstance(node, exp.Neg):
        operand = lower(node.this)
        if isinstance(operand, Literal) and isinstance(operand.value, int | float):
            return Literal(-operand.value)
        return Unary("-", operand)
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return call("isnull", lower(node.this))
    if type(node) in _BINARY:
        left, right = lower(node.this), lower(node.expression)
        if isinstance(node, exp.Add) and isinstance(left, Interval) and isinstance(
                right, Interval):  # INTERVAL 1 HOUR 30 MINUTES
            return Interval(left.micros + right.micros)
        return Binary(_BINARY[type(node)], left, right)
    if isinstance(node, exp.DPipe):
        return call("concat", lower(node.this), lower(node.expression))
    if type(node) in _PREDICATES:
        return call(_PREDICATES[type(node)], lower(node.this), lower(node.expression))
    if isinstance(node, exp.In) and not node.args.get("query"):
        return call("in", lower(node.this), *(lower(e) for e in node.expressions))
    if isinstance(node, exp.Between):
        return call("between", lower(node.this), lower(node.args["low"]),
                    lower(node.args["high"]))
    if isinstance(node, exp.Case) and node.this is None:
        branches = tuple((lower(i.this), lower(i.args["true"])) for i in node.args["ifs"])
        default = node.args.get("default")
        return Case(branches, lower(default) if default is not None else None)
    if isinstance(node, exp.If):
        false = node.args.get("false")
        return Case(((lower(node.this), lower(node.args["true"])),),
                    lower(false) if false is not None else None)
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
        key = lower(node.expressions[0])
        if isinstance(key, Literal) and isinstance(key.value, str | int) and not isinstance(
                key.value, bool):
            return Field(lower(node.this), key.value)
        return call("element_at", lower(node.this), key)
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        return Field(lower(node.this), node.expression.name)
    if isinstance(node, exp.Ordered):
        return call("desc" if node.args.get("desc") else "asc", lower(node.this))
    if isinstance(node, exp.Anonymous):
        return _function(str(node.this), node.expressions)
    if isinstance(node, exp.Func) and not isinstance(node, exp.Window | exp.Filter):
        return _generic_function(node)
    return _unresolved(node)


def _column(node: exp.Column) -> Expr:
    if isinstance(node.this, exp.Star):
        return Star(node.table or None)
    parts = [p.name for p in node.parts]
    if len(parts) <= 2:
        return Column(parts[-1], parts[0] if len(parts) == 2 else None)
    # `a.b.c`: a qualified column's struct field (Spark resolves it the same way).
    expr: Expr = Column(parts[1], parts[0])
    for part in parts[2:]:
        expr = Field(expr, part)
    return expr


def _function(name: str, args: list[exp.Expr]) -> Expr:
    distinct = False
    if len(args) == 1 and isinstance(args[0], exp.Distinct):
        distinct, args = True, list(args[0].expressions)
    lowered = [lower(a) for a in args]
    if name.lower() in WINDOW_FUNCTIONS:  # durations, however spelled, are one value
        lowered = [lowered[0], *(_as_interval(a) for a in lowered[1:])] if lowered else []
    if name.lower() == "window" and len(lowered) == 3 and lowered[1] == lowered[2]:
        lowered = lowered[:2]  # a slide equal to the duration is the tumbling window
    return call(name, *lowered, distinct=distinct)


def _generic_function(node: exp.Func) -> Expr:
    """A function sqlglot parses into its own class even so (SUBSTRING, IF, ...): the name
    Spark's generator writes, the arguments in sqlglot's order."""
    text = node.sql(dialect=StreamingSpark)
    name = text.split("(", 1)[0].strip()
    if not name.replace("_", "").isalnum():
        return _unresolved(node)
    args: list[exp.Expr] = []
    for key in node.arg_types:
        value = node.args.get(key)
        if isinstance(value, list):
            args.extend(v for v in value if isinstance(v, exp.Expr))
        elif isinstance(value, exp.Expr):
            args.append(value)
    return _function(name, args)


def _as_interval(expr: Expr) -> Expr:
    if isinstance(expr, Literal) and isinstance(expr.value, str):
        micros = duration(expr.value)
        return Interval(micros) if micros is not None else expr
    return expr


def _interval(node: exp.Interval) -> int | None:
    amount = node.this.name if isinstance(node.this, exp.Expr) else str(node.this or "")
    unit = node.args.get("unit")
    return duration(f"{amount} {unit.name if unit is not None else ''}")


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return 0


def _unresolved(node: exp.Expr) -> Unresolved:
    try:
        return Unresolved(node.sql(dialect=StreamingSpark))
    except SqlglotError:
        return Unresolved(type(node).__name__)


def has_aggregate(expr: Expr) -> bool:
    """Whether the expression calls an aggregate function (not inside a window's OVER)."""
    return any(isinstance(n, Call) and n.function in AGGREGATES for n in walk(expr))
