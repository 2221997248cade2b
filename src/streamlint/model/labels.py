"""What a report calls a query: a name a person recognises, and never the same for two.

A query is named by what identifies it to Spark and to its team: its `queryName`, its
checkpoint, the table, path or topic it writes. When that is unknown or shared (three queries
built by one helper function all write from the same line), the label says where the query
is written and what it reads, and as a last resort which of the queries written there it is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from streamlint.model.base import Template, code_of, is_known, option

if TYPE_CHECKING:
    from streamlint.model import Query


def _text(value: object) -> str | None:
    """A name-like value as the code wrote it; an unresolved one is no name."""
    if isinstance(value, str) and value and is_known(value):
        return value
    if isinstance(value, Template) and any(isinstance(p, str) and p for p in value.parts):
        return code_of(value)
    return None


def where(query: Query) -> str:
    """The file and line where the query is written (its sink)."""
    loc = query.sink.loc
    return f"{loc.path}:{loc.line}"


def reads(query: Query) -> str | None:
    """What a query reads, in a few words: `kafka topic 'orders'`, `delta '/tables/x'`."""
    parts: list[str] = []
    for source in query.sources:
        fmt = _text(source.format) or "a source"
        ident = next((_text(v) for _, v in source.identity if _text(v)), None)
        if ident is None:
            ident = _text(option(source.options, "path"))
        parts.append(f"{fmt} {ident!r}" if ident else fmt)
    return ", ".join(parts) or None


def query_label(query: Query) -> str:
    """The best single name of a query, without looking at the others."""
    for candidate in (query.sink.query_name, query.sink.checkpoint, query.sink.target):
        text = _text(candidate)
        if text is not None:
            return text
    return f"query written at {where(query)}"


def unique_labels(queries: Sequence[Query]) -> list[str]:
    """One label per query, different for different queries (in the order given)."""
    base = [query_label(q) for q in queries]
    extras: list[list[str]] = [[] for _ in queries]

    def labels() -> list[str]:
        return [f"{b} ({', '.join(e)})" if e else b for b, e in zip(base, extras, strict=True)]

    refinements = (
        lambda q: f"written at {where(q)}",
        lambda q: f"reading {reads(q)}" if reads(q) else None,
    )
    for refine in refinements:
        current = labels()
        counts = Counter(current)
        if all(n == 1 for n in counts.values()):
            return current
        for i, query in enumerate(queries):
            if counts[current[i]] > 1:
                extra = refine(query)
                if extra and extra not in current[i]:
                    extras[i].append(extra)
    current = labels()
    counts = Counter(current)
    seen: Counter[str] = Counter()
    for i, label in enumerate(current):
        if counts[label] > 1:
            seen[label] += 1
            current[i] = f"{label} [query {seen[label]} of {counts[label]}]"
    return current


def pair_labels(pairs: Sequence[tuple[Query | None, Query | None]]) -> list[str]:
    """One label per query pair: the new query's, or the old one's for a removed query."""
    queries = [new if new is not None else old for old, new in pairs]
    present = [q for q in queries if q is not None]
    labels = iter(unique_labels(present))
    return [next(labels) if q is not None else "-" for q in queries]
