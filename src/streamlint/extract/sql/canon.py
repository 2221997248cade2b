"""Canonical forms shared by both SQL expression readers (no sqlglot here): durations as
microseconds, window durations as `Interval`, which functions aggregate."""

from __future__ import annotations

import re

from streamlint.model.expr import WINDOW_FUNCTIONS, Call, Expr, Interval, Literal, call, walk

AGGREGATES = frozenset({
    "count", "sum", "avg", "min", "max", "first", "last", "collect_list", "collect_set",
    "approx_count_distinct", "count_distinct", "sum_distinct", "stddev", "stddev_pop",
    "var_samp", "var_pop", "bool_and", "bool_or", "max_by", "min_by", "percentile_approx",
    "percentile", "any_value", "count_if", "corr", "covar_pop", "covar_samp", "kurtosis",
    "skewness", "median", "mode", "array_agg", "approx_percentile", "bit_and", "bit_or",
    "bit_xor", "count_min_sketch", "histogram_numeric", "regr_count", "try_sum", "try_avg",
})
_MICROS = {"microsecond": 1, "millisecond": 1_000, "second": 1_000_000, "sec": 1_000_000,
           "minute": 60_000_000, "min": 60_000_000, "hour": 3_600_000_000,
           "day": 86_400_000_000, "week": 604_800_000_000}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+?)s?\b")


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


def function(name: str, args: list[Expr], distinct: bool = False) -> Call:
    """A SQL function call in the model's canonical form (window durations as intervals)."""
    if name.lower() in WINDOW_FUNCTIONS and args:
        args = [args[0], *(_as_interval(a) for a in args[1:])]
    if name.lower() == "window" and len(args) == 3 and args[1] == args[2]:
        args = args[:2]  # a slide equal to the duration is the tumbling window
    return call(name, *args, distinct=distinct)


def _as_interval(expr: Expr) -> Expr:
    if isinstance(expr, Literal) and isinstance(expr.value, str):
        micros = duration(expr.value)
        return Interval(micros) if micros is not None else expr
    return expr


def has_aggregate(expr: Expr) -> bool:
    """Whether the expression calls an aggregate function."""
    return any(isinstance(n, Call) and n.function in AGGREGATES for n in walk(expr))
