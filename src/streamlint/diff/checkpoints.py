"""Checkpoints as Spark sees them: one query per checkpoint, and a path that stays put.

Two findings that are about a query's checkpoint rather than about how it changed: two
different queries that write one checkpoint (in one file here, across the repository in
`streamlint.workflow.crossfile`), and a checkpoint path built from the clock or a random id, which
is a new checkpoint on every run.
"""

from __future__ import annotations

from collections.abc import Iterable

from streamlint.diff.compare import Change, Code, compare_queries
from streamlint.model import Query, Template, Unknown, exclusive
from streamlint.model.identity import QueryKey, checkpoint_key
from streamlint.rulebook.matrix import judge
from streamlint.rulebook.rule import Runtime


def shared_keys(changes: Iterable[Change]) -> set[QueryKey]:
    """The checkpoints that shared-checkpoint changes (`shared_change`) are about: each
    change's new value is its checkpoint key's value."""
    return {QueryKey("checkpoint", str(c.new)) for c in changes
            if c.kind == "query.shared_checkpoint"}


def unresolved_text(value: object) -> str | None:
    """The code of a value not known statically (an unknown, a partly-known string)."""
    if isinstance(value, Unknown):
        return value.text
    if isinstance(value, Template):
        return str(value)
    return None


def volatile_changes(queries: Iterable[Query]) -> list[Change]:
    """One change per query whose checkpoint path is built from the clock or a random id."""
    changes = []
    for query in queries:
        call = query.sink.volatile
        if call is not None:
            text = unresolved_text(query.sink.checkpoint) or ""
            changes.append(Change(
                "query.volatile_checkpoint", Code(f"`{call}`"), None, Code(text), None,
                query.sink.checkpoint_loc or query.sink.loc, query.label,
                {"stateful": "true" if query.stateful else "false",
                 "sink": str(query.sink.format)}))
    return changes


def where(query: Query) -> str:
    """How a finding names the other query: where its checkpoint is set, and its name."""
    loc = query.sink.checkpoint_loc or query.sink.loc
    name = query.sink.query_name
    return f"the query {name!r} at {loc}" if isinstance(name, str) else f"the query at {loc}"


def shared_change(query: Query, others: list[Query], alike: bool) -> Change:
    """`query` writes the same checkpoint as `others` (each a different query).

    `alike`: restarting each from the others' checkpoint is judged compatible, so they are
    one query started from several places (fine while they never run at once).
    """
    key = checkpoint_key(query, partly=True)
    return Change(
        "query.shared_checkpoint", "the checkpoint location",
        Code(", ".join(where(other) for other in others)),
        Code(key.value if key is not None else ""),
        None, query.sink.checkpoint_loc or query.sink.loc, query.label,
        {"alike": "true" if alike else "false",
         "stateful": "true" if query.stateful else "false"})


def shared_in_file(queries: tuple[Query, ...], version: Runtime) -> list[Change]:
    """Queries of one file that share a checkpoint: one change at each later one.

    Two records that are equal in everything are one query (a helper called twice with the
    same arguments builds the same query twice; the job starts it once per call, and a
    restart resumes it either way).
    """
    changes = []
    for j, query in enumerate(queries):
        key = checkpoint_key(query, partly=True)
        if key is None:
            continue
        # A query started after its checkpoint was deleted (`cleared` differs) starts afresh.
        # Queries under conditions no run meets together (`if mode == "A"` / `if mode ==
        # "C"`) are alternatives: each run starts one of them on the checkpoint.
        before = [q for q in queries[:j] if checkpoint_key(q, partly=True) == key and q != query
                  and q.sink.cleared == query.sink.cleared
                  and not exclusive(q.sink.conditions, query.sink.conditions)]
        if before and query not in queries[:j]:
            same = all(alike(q, query, version) for q in before)
            if same and query.sink.restarts:
                continue  # the same query stopped, then started again: a restart
            changes.append(shared_change(query, distinct(before), same))
    return changes


def distinct(queries: list[Query]) -> list[Query]:
    out: list[Query] = []
    for query in queries:
        if query not in out:
            out.append(query)
    return out


def alike(a: Query, b: Query, version: Runtime) -> bool:
    """Whether `b` may restart from `a`'s checkpoint: every difference judged compatible."""
    return all(judge(change, version).verdict == "compatible"
               for change in compare_queries(a, b))
