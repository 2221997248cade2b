"""What a restart resumes: a query's identity, in one place.

A restarted query continues the checkpoint it is given, so two versions of a query are the
same query when they write the same checkpoint directory (however it is spelled:
`streamlint.model.paths`). Where the checkpoint is not known, the query's name and then its
sink's target stand in for it. Every part of streamlint that pairs queries (the diff of two
files, `check` across files, `--confirm` pairing Spark's runs with the static ones) asks
`keys` for the same keys, in the same order.
"""

from __future__ import annotations

from streamlint.model import Query
from streamlint.model.paths import normal_value
from streamlint.model.records import record


@record
class QueryKey:
    """One way to name a query: `kind` ("checkpoint", "name", "target") and its value."""

    kind: str
    value: object


def keys(query: Query) -> tuple[QueryKey, ...]:
    """The query's keys, strongest first: its checkpoint under the conditions it is started
    in (alternatives on one checkpoint, `if mode == "A"` / `if mode == "C"`, are each their
    own query), its checkpoint with where it is started (a run of the file, or a function
    nothing in the file calls: where several queries share one checkpoint, the one the file's
    run starts is the one that resumes it), its checkpoint, its name, its sink's format and
    target. A key whose value is not known is left out."""
    sink = query.sink
    found: list[QueryKey] = []
    if sink.checkpoint is not None:
        checkpoint = normal_value(sink.checkpoint)
        if sink.conditions:
            found.append(QueryKey("checkpoint+conditions", (checkpoint, sink.conditions)))
        found.append(QueryKey("checkpoint+entry", (checkpoint, sink.entry)))
        found.append(QueryKey("checkpoint", checkpoint))
    if sink.query_name is not None:
        found.append(QueryKey("name", sink.query_name))
    if sink.format is not None or sink.target is not None:
        found.append(QueryKey("target", (sink.format, normal_value(sink.target))))
    return tuple(found)


KINDS = ("checkpoint+conditions", "checkpoint+entry", "checkpoint", "name", "target")


def key_of(query: Query, kind: str) -> object:
    """The value of the query's key of that kind, None when it has none."""
    return next((k.value for k in keys(query) if k.kind == kind), None)
