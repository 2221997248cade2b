"""Whether a query reads some of its input columns after its sources: the cheap answer.

A column is used when an operator's expression names it, when it reaches the sink, or when
something takes whole rows (a star, a deduplication on every column, a stateful function,
a pandas UDF over the group). Anything the extractor could not read makes the answer
"unknown", never "false": the rules treat only a certain "false" as harmless.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from streamlint.model import ArbitraryState, Deduplication, Projection, Query
from streamlint.model.expr import Definition, Star, Unresolved, refs, walk

# Projection steps whose expressions are the columns they keep or compute (the others, like
# applyInPandas, pass whole rows to code streamlint does not read).
_COLUMN_STEPS = frozenset({"select", "selectExpr", "withColumn", "withColumns",
                           "withColumnRenamed", "withColumnsRenamed", "drop", "alias",
                           "toDF", "expr"})


def _exprs(value: Any) -> Iterator[Any]:
    """Every expression held in an operator's fields, through tuples and definitions."""
    if isinstance(value, Definition):
        yield value.expr
    elif isinstance(value, tuple):
        for item in value:
            yield from _exprs(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        if type(value).__module__ == "streamlint.model.expr":
            yield value
        else:
            for field in dataclasses.fields(value):
                if field.name != "loc":
                    yield from _exprs(getattr(value, field.name))


def _names(query: Query) -> set[str] | None:
    """The column names a query reads after its sources; None when whole rows are taken or
    something could not be read."""
    if query.unresolved or query.output_columns is None or "*" in query.output_columns:
        return None
    names = set(query.output_columns)
    for op in query.operators:
        if isinstance(op, ArbitraryState):
            return None
        if isinstance(op, Deduplication) and op.keys is None:
            return None
        if isinstance(op, Projection) and op.method not in _COLUMN_STEPS:
            return None
        for expr in _exprs(op):
            if any(isinstance(node, (Star, Unresolved)) for node in _walk(expr)):
                return None
            names |= refs(expr)
        for attr in ("column", "keys"):  # a watermark's column; join and dedup key names
            value = getattr(op, attr, None)
            if isinstance(value, str):
                names.add(value)
            elif isinstance(value, tuple):
                names |= {v for v in value if isinstance(v, str)}
    return names


def _walk(expr: Any) -> Iterator[Any]:

    return walk(expr)


def uses(queries: Iterable[Query], columns: Iterable[str]) -> str:
    """"true" when one of the queries reads one of `columns` after its sources, "false" when
    none does, "unknown" when that cannot be told."""
    wanted = {c.lower() for c in columns}
    for query in queries:
        names = _names(query)
        if names is None:
            return "unknown"
        for name in names:
            parts = name.lower().split(".")
            if parts[0] in wanted or parts[-1] in wanted:
                return "true"
    return "false"
