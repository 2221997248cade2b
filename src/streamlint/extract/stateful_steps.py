"""The stateful steps of a plan: joins (which side is static, the columns a join yields),
aggregations (the calls, the grouping keys, a pivot) and deduplication keys, each as plain
model records."""

from __future__ import annotations

from typing import Any

from streamlint.extract.columns import (
    as_col,
    column,
    function_col,
    literal_expr,
    plain,
)
from streamlint.extract.frames import (
    JOIN_TYPES,
    STATIC_SIDE,
    flatten,
    inputs_of,
    resolved_key,
    side_columns,
    steps_text,
    unresolved_plan,
)
from streamlint.extract.spark_values import Col, Grouped, Plan
from streamlint.model import (
    AggCall,
    Aggregation,
    Loc,
    StaticJoin,
    StreamJoin,
)
from streamlint.model.expr import (
    Alias,
    Binary,
    Call,
    Column,
    Definition,
    Expr,
    call,
    is_known,
    render,
)


def join(plan: Plan, other: Any, on: Any, how: Any, loc: Loc) -> Plan:
    how = JOIN_TYPES.get(how.lower().replace(" ", ""), how) if isinstance(how, str) else how
    how = "inner" if how is None else plain(how)
    if not isinstance(other, Plan):
        other = unresolved_plan(other, loc)
    keys: tuple[str, ...] = ()
    condition: Expr | None = None
    cols: list[Col] = []
    if isinstance(on, str):
        keys, cols = (on,), [column(on)]
    elif isinstance(on, tuple) and all(isinstance(k, str) for k in on):
        keys, cols = tuple(on), [column(k) for k in on]
    elif isinstance(on, tuple):
        cols = [as_col(c) for c in on]
        for col in cols:
            condition = col.expr if condition is None else Binary("and", condition, col.expr)
    elif on is not None:
        cols = [as_col(on)]
        condition = cols[0].expr
    if not (plan.streaming and other.streaming):
        static = other if not other.streaming else plan
        named = tuple(column(k).expr for k in keys) or ((condition,) if condition else ())
        # The static side by what it reads and, where it has any, the steps it takes (a
        # select or rename there changes what the join gives the sink).
        steps = ((Binary("=", Column("steps"), literal_expr(steps_text(static.operators))),)
                 if static.operators else ())
        side = call(STATIC_SIDE, *(Binary("=", Column(str(k)), literal_expr(v))
                                   for s in static.sources for k, v in s.identity), *steps)
        stream = plan if plan.streaming else other
        return Plan(stream.sources, (*stream.operators, StaticJoin(how, (*named, side), loc)),
                    True, joined_columns(plan, other, keys, how), stream.definitions,
                    stream.unresolved + static.unresolved)
    found = {d.name: d for d in (*inputs_of(plan, cols), *inputs_of(other, cols))}
    op = StreamJoin(how, keys, condition, tuple(found[n] for n in sorted(found)), loc,
                    left_columns=side_columns(plan), right_columns=side_columns(other))
    return Plan(
        sources=plan.sources + other.sources,
        operators=(*plan.operators, *other.operators, op), streaming=True, columns=None,
        definitions=plan.definitions + other.definitions,
        unresolved=plan.unresolved + other.unresolved,
    )


def joined_columns(left: Plan, right: Plan, keys: tuple[str, ...], how: Any
                   ) -> tuple[str, ...] | None:
    """The column names a join gives, when both sides' are known: a join on names gives each
    name once, first, then the other columns of the left side and of the right; one on a
    condition gives both sides' columns; a semi or anti join only the left side's."""
    ours, theirs = side_columns(left), side_columns(right)
    if ours is None or theirs is None or not isinstance(how, str):
        return None
    if how in ("left_semi", "left_anti"):
        return ours
    if not keys:
        return ours + theirs
    if not all(k in ours and k in theirs for k in keys):
        return None  # a name one side lacks: Spark refuses the join
    return (*keys, *(c for c in ours if c not in keys), *(c for c in theirs if c not in keys))


def agg_call(col: Col) -> AggCall:
    alias = col.name if isinstance(col.expr, Alias) else None
    bare = col.bare
    if isinstance(bare, Call):
        return AggCall(bare.function, bare.args, alias, bare.distinct)
    if not is_known(bare) or not render(bare):
        # No function name to compare (unresolved, or a column named ""): the expression
        # that built it is the value.
        return AggCall("", (bare,), alias)
    return AggCall(render(bare), (), alias)


def aggregate(grouped: Grouped, args: list[Any], loc: Loc) -> Plan:
    calls: list[AggCall] = []
    cols: list[Col] = list(grouped.keys)
    items = flatten(args)
    if len(items) == 1 and isinstance(items[0], dict):
        items = [function_col(str(fn), [column(str(c)).expr]) for c, fn in items[0].items()]
    for item in items:
        col = as_col(item)
        cols.append(col)
        calls.append(agg_call(col))
    return finish_aggregation(grouped, tuple(calls), cols, loc)


def aggregate_method(grouped: Grouped, name: str, args: list[Any], loc: Loc) -> Plan:
    """`groupBy(k).sum("x")`, `.count()`: the method names the aggregate."""
    columns = [as_col(a) for a in flatten(args)] or ([column("*")] if name == "count" else [])
    function = "avg" if name == "mean" else name
    calls = tuple(AggCall(function, (c.expr,), name if name == "count" else None)
                  for c in columns)
    return finish_aggregation(grouped, calls, list(grouped.keys) + columns, loc)


def finish_aggregation(grouped: Grouped, calls: tuple[AggCall, ...], cols: list[Col],
                       loc: Loc) -> Plan:
    plan = grouped.plan
    op = Aggregation(grouped.method, tuple(resolved_key(plan, k) for k in grouped.keys), calls,
                     inputs_of(plan, cols), grouped.loc)
    names = [k.name or render(k.bare) for k in grouped.keys]
    names += [c.alias or (render(Call(c.function, c.args, c.distinct)) if c.function
                          else render(c.args[0]) if c.args else "") for c in calls]
    return plan.then(op, columns=tuple(names), definitions=())


def pivot_key(pivot: Any) -> Col:
    return Col(call("pivot", literal_expr(pivot)), None)


def dedup_keys(plan: Plan, subset: Any) -> tuple[tuple[str, ...] | None, tuple[Definition, ...]]:
    """dropDuplicates' key names (through renames) and how they were computed upstream."""
    if isinstance(subset, tuple):
        subset = list(subset)
    elif subset is not None and not isinstance(subset, list):
        subset = [subset]  # one name, or a value streamlint cannot read: a key all the same
    if not subset and plan.columns is not None and "*" not in plan.columns:
        # No subset: every column is the key, so a column added upstream changes it.
        subset = list(plan.columns)
    key_cols = [as_col(k) for k in subset or []]
    keys = tuple(render(resolved_key(plan, k)) for k in key_cols) if subset else None
    return keys, inputs_of(plan, key_cols)
