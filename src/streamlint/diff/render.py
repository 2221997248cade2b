"""How the diff shows what it compares: expressions in their canonical SQL-like spelling
(`model.expr.render`), operators and sources in one line each. Never a record's repr."""

from __future__ import annotations

from typing import Any

from streamlint.model import (
    Aggregation,
    ArbitraryState,
    Deduplication,
    Operator,
    Source,
    StreamJoin,
    show,
)
from streamlint.model.expr import Binary, Call, Column, Definition, Expr, is_known, render
from streamlint.rulebook.change import Code


def code(text: str, *exprs: Expr | None) -> Code:
    shown = Code(text)
    shown.known = all(e is None or is_known(e) for e in exprs)
    return shown


def exprs_text(exprs: tuple[Expr, ...] | None, empty: str = "(none)") -> Code:
    if exprs is None:
        return Code("all columns")
    return code(", ".join(render(e) for e in exprs) or empty, *exprs)


def names_text(names: tuple[str, ...] | None) -> Code:
    return Code("all columns" if names is None else ", ".join(names) or "(none)")


def agg_text(call: Any) -> Code:
    expr = Call(call.function, call.args, call.distinct) if call.function else call.args[0]
    text = render(expr)
    return code(f"{text} AS {call.alias}" if call.alias else text, expr)


def aggs_text(calls: tuple[Any, ...]) -> Code:
    parts = [agg_text(c) for c in calls]
    shown = Code(", ".join(parts) or "(none)")
    shown.known = all(p.known for p in parts)
    return shown


def definitions_text(items: tuple[Definition, ...]) -> Code:
    return code("; ".join(f"{d.name} as read" if d.expr == Column(d.name)
                          else f"{d.name} = {render(d.expr)}" for d in items),
                *(d.expr for d in items))


def join_on_text(op: StreamJoin) -> Code:
    if op.keys:
        return names_text(op.keys)
    return code(render(op.condition) if op.condition is not None else "(no condition)",
                op.condition)


def static_on_text(on: tuple[Expr, ...]) -> Code:
    """`imp_ad_id = ad_id with path='/mnt/dim/campaigns'`: the side read statically last."""
    parts: list[str] = []
    for expr in on:
        if isinstance(expr, Call) and expr.function == "static_source":
            sides = [f"{render(a.left)}={render(a.right)}" if isinstance(a, Binary)
                     else render(a) for a in expr.args]
            parts.append("with " + ", ".join(sides))
        else:
            parts.append(render(expr))
    return code(" ".join(parts), *on)


def op_name(op: Operator) -> Code:
    if isinstance(op, Aggregation):
        keys, aggs = exprs_text(op.keys), aggs_text(op.aggregates)
        shown = Code(f"{op.method}({keys}).agg({aggs})")
        shown.known = keys.known and aggs.known
        return shown
    if isinstance(op, Deduplication):
        return Code(f"{op.method}({names_text(op.keys)})")
    if isinstance(op, StreamJoin):
        on = join_on_text(op)
        return code(f"{op.how} stream-stream join on {on}", op.condition)
    if isinstance(op, ArbitraryState):
        return Code(f"{op.api}({op.function})")
    return Code(op.kind)


def describe(source: Source) -> Code:
    identity = ", ".join(f"{k}={show(v)}" for k, v in source.identity)
    return Code(f"{source.format}({identity})" if identity else str(source.format))


def projections_text(ops: list[Any]) -> Code:
    exprs = [e for p in ops for e in p.exprs]
    steps = (f"{p.method}({', '.join(render(e) for e in p.exprs)})" for p in ops)
    return code("; ".join(steps) or "(none)", *exprs)


def column_list(cols: tuple[str, ...] | None) -> tuple[Code, ...] | Code:
    """Column names as a list a message can name the added and removed of (`unknown` when
    they are not known)."""
    return tuple(Code(c) for c in cols) if cols else maybe_names(cols)


def maybe_names(cols: tuple[str, ...] | None) -> Code:
    return Code("unknown" if cols is None else ", ".join(cols))


def trigger_text(trigger: tuple[str, Any]) -> Code:
    kind, value = trigger
    if kind == "default":
        return Code("default (micro-batch as fast as possible)")
    if value is True:
        return Code(f"{kind}=True")
    return Code(f"{kind}={show(value)}")
