"""Which restart-relevant facts of a query take their value from outside the job's code.

A query's checkpoint, the topics, paths and tables its sources read, its grouping keys and
its windows decide whether it can restart from its checkpoint. When one of them comes from a
default a deployment may override (`model.Overridable`: an environment variable, a widget,
an argument) or from a file streamlint could not read (`Unknown.unread`), the same code on
both sides is not proof of the same value: each such use is a `model.Input` of the query,
which the diff compares (diff/inputs.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from streamlint.model import (
    Aggregation,
    ArbitraryState,
    Deduplication,
    Input,
    Loc,
    Query,
    StreamJoin,
    Template,
    Unknown,
    origins_of,
)
from streamlint.model.expr import Call, Unresolved, unaliased
from streamlint.model.records import fields, is_record

MAX_NODES = 2_000  # a fact's value is small; a huge expression is not searched through


def inputs_of(query: Query) -> tuple[Input, ...]:
    found: list[Input] = []

    def add(about: str, fact: str, value: Any, loc: Loc) -> None:
        for kind, origin, default in _outside(value, [0]):
            item = Input(kind, origin, default, fact, loc, about)
            if item not in found:
                found.append(item)

    for source in query.sources:
        for key, value in source.identity:
            add("source", f"the {source.format} source option `{key}`", value, source.at(key))
    sink = query.sink
    add("checkpoint", "checkpointLocation", sink.checkpoint, sink.checkpoint_loc or sink.loc)
    for op in query.operators:
        if isinstance(op, Aggregation | ArbitraryState):
            for key in op.keys:
                windowed = isinstance(unaliased(key), Call) and unaliased(key).function in (
                    "window", "session_window")
                add("window" if windowed else "grouping",
                    "the window" if windowed else "a grouping key", key, op.loc)
        elif isinstance(op, Deduplication | StreamJoin):
            dedup = isinstance(op, Deduplication)
            add("dedup" if dedup else "join",
                "a deduplication key" if dedup else "a join key", op.keys, op.loc)
    return tuple(found)


def _outside(value: Any, seen: list[int]) -> Iterator[tuple[str, str, str | None]]:
    seen[0] += 1
    if seen[0] > MAX_NODES:
        return
    for origin, default in origins_of(value):
        yield "override", origin, default
    if isinstance(value, Unknown | Unresolved) and value.unread:
        yield "unread", value.unread, None
    elif isinstance(value, Template):
        for part in value.parts:
            yield from _outside(part, seen)
    elif isinstance(value, tuple):
        for item in value:
            yield from _outside(item, seen)
    elif is_record(value) and not isinstance(value, Unknown | Unresolved):
        for name in fields(value):
            yield from _outside(getattr(value, name), seen)
