"""SQL's GROUP BY and aggregates lowered to a groupBy/agg of the DataFrame API: grouping keys by
position, alias or expression, and the select list projected over the aggregation's outputs."""

from __future__ import annotations

from sqlglot import exp

from streamlint.extract.pyspark_api.grouped import grouped_call
from streamlint.extract.spark_values import Grouped, Plan
from streamlint.extract.sql.bridge import output_column, to_col
from streamlint.extract.sql.canon import has_aggregate
from streamlint.extract.sql.expressions import lower
from streamlint.extract.sql.rewrite import substitute
from streamlint.extract.sql.scope import Scope, sql_text, unread
from streamlint.model.expr import (
    Alias,
    Column,
    Expr,
    Literal,
    output_name,
    unaliased,
)


def aggregate(scope: Scope, plan: Plan, items: list[Expr], group: exp.Group | None,
               having: exp.Having | None) -> Plan:
    """GROUP BY (ordinals, select-list aliases, window()) with the select list's aggregates
    as `groupBy(keys).agg(aggregates)`; a `select` after it only when the list is not
    the keys then the aggregates, as `agg` already outputs them."""
    aliases = {i.name: i for i in items if isinstance(i, Alias)}
    keys: list[Expr] = []
    method = "groupBy"
    nodes: list[exp.Expr] = list(group.expressions) if group is not None else []
    if len(nodes) == 1 and isinstance(nodes[0], exp.Rollup | exp.Cube):  # = df.rollup(...)
        method, nodes = type(nodes[0]).__name__.lower(), list(nodes[0].expressions)
    if group is not None and group.args.get("all"):  # GROUP BY ALL: every non-aggregate
        keys = [i for i in items if not has_aggregate(i)]
    for node in nodes:
        keys.append(_key(lower(node), items, aliases, plan))
    aggregates = [i for i in items if has_aggregate(i)]
    grouped = scope.call(plan, method, *(to_col(k) for k in keys))
    if not isinstance(grouped, Grouped):
        return unread(scope, group)
    plan = grouped_call(scope.interp, grouped, "agg", [to_col(a) for a in aggregates], {},
                            scope.node, scope.loc)
    unlowered = [n for n in nodes if isinstance(n, exp.Rollup | exp.Cube | exp.GroupingSets)]
    if unlowered or any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets")
                        if group is not None):
        plan = scope.note(plan, f"grouping `{sql_text(group)}`")
    outputs = {unaliased(e): Column(_output(e)) for e in (*keys, *aggregates)}
    if having is not None:
        condition = substitute(lower(having.this), outputs)
        plan = scope.call(plan, "filter", to_col(condition))
    if items != [*keys, *aggregates]:
        projected = [_projected(i, outputs) for i in items]
        plan = scope.call(plan, "select", *(to_col(i) for i in projected))
    return plan


def _key(key: Expr, items: list[Expr], aliases: dict[str, Expr], plan: Plan) -> Expr:
    """A GROUP BY key: an ordinal or a select-list alias is that select item; an expression
    the select list names is that item, alias included (its output column's name)."""
    if isinstance(key, Literal) and isinstance(key.value, int) and 1 <= key.value <= len(items):
        return items[key.value - 1]
    if isinstance(key, Column) and key.qualifier is None and key.name in aliases and (
            plan.columns is None or key.name not in plan.columns):
        return aliases[key.name]
    return next((i for i in items if unaliased(i) == key and i != key), key)


def _output(expr: Expr) -> str:
    """The column `agg` names an output (as `finish_aggregation` does)."""
    return output_column(expr)


def _projected(item: Expr, outputs: dict[Expr, Expr]) -> Expr:
    """A select item after the aggregation: keys and aggregates read as their outputs."""
    inner = unaliased(item)
    if inner in outputs:
        column = outputs[inner]
        name = output_name(item)
        return column if name in (None, getattr(column, "name", None)) else Alias(column, name)
    return substitute(item, outputs)
