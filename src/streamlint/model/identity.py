"""What a restart resumes: a query's identity, in one place.

A restarted query continues the checkpoint it is given, so two versions of a query are the
same query when they write the same checkpoint directory (however it is spelled:
`streamlint.model.paths`). Where the checkpoint is not known, the query's name and then its
sink's target stand in for it. Every part of streamlint that pairs, matches or groups queries
asks this module, and gets a `QueryKey`:

- `keys`: two versions of a file (`diff`), and `check` across files;
- `run_keys` / `started_key`: `--confirm`, a query the static reading found and the one a run
  of the job started (`spark.writer_patches` names each started query by `started_key`);
- `checkpoint_key` / `owner`: which query writes a checkpoint (`diff --checkpoint PATH`, two
  queries sharing one, in one file or across the repository);
- `named` / `writes_checkpoint`: a query a person names (an acceptance entry).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import TypeVar

from streamlint.model import Query
from streamlint.model.base import Template, is_known
from streamlint.model.paths import normal_path, normal_value, repository_place
from streamlint.model.records import record

T = TypeVar("T")


@record
class QueryKey:
    """One way to name a query: `kind` ("checkpoint+conditions", "checkpoint+entry",
    "checkpoint", "name", "target", "position") and its value."""

    kind: str
    value: object

    def __str__(self) -> str:
        """How a message or a folder name shows the key (`checkpoint:/chk/orders`); never
        read back: the key itself travels as data."""
        return f"{self.kind}:{self.value}"


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


# -- a query and a run of the job (`--confirm`) ------------------------------------------------

# How a path of the job's repository (made from `__file__`) is named where queries are paired:
# the same in the static reading, which knows its place in the repository only, and in a run
# of the job (`--confirm`), which knows where the repository is on this machine.
IN_REPOSITORY = "repo:"


def query_path(value: object) -> str | None:
    """A checkpoint's or a sink's path as the identity that pairs a query, across the two
    versions and with the query a run of the job started: a known path's normal form; a path
    of the job's repository by its place there; None for a value known only at run time."""
    if isinstance(value, str):
        return normal_path(value)
    place = repository_place(value)
    return IN_REPOSITORY + place if place is not None else None


def run_path(text: str, root: str) -> str:
    """A path as a run of the job on this machine gives it, named as `query_path` names the
    static reading's: a path under the job's repository `root` by its place there."""
    local = text
    for prefix in ("file://", "file:"):
        if local.startswith(prefix):
            local = local[len(prefix):]
            break
    if root and posixpath.isabs(local):
        local = posixpath.normpath(local)
        if local == root or local.startswith(root.rstrip("/") + "/"):
            return IN_REPOSITORY + (posixpath.relpath(local, root) if local != root else ".")
    return text


def run_keys(query: Query, position: int) -> tuple[QueryKey, ...]:
    """The keys under which a run of the job may have started this query of the static
    reading (`started_key`), strongest first: its checkpoint's path, its name, its target's
    path (paths by `query_path`, so that `/chk/x/` and `dbfs:/chk/x`, or a path made from
    `__file__`, are the path the run used), its `position` among the file's queries."""
    sink = query.sink
    found: list[QueryKey] = []
    checkpoint, target = query_path(sink.checkpoint), query_path(sink.target)
    if checkpoint is not None:
        found.append(QueryKey("checkpoint", checkpoint))
    if isinstance(sink.query_name, str):
        found.append(QueryKey("name", sink.query_name))
    if target is not None:
        found.append(QueryKey("target", target))
    found.append(QueryKey("position", position))
    return tuple(found)


def started_key(checkpoint: str | None, name: str | None, target: object,
                position: int) -> QueryKey:
    """The key a run of the job starts a query under (one of the query's `run_keys`): its
    checkpoint, else its name, else its sink's path or table, else its `position` among the
    queries the run started."""
    if checkpoint:
        return QueryKey("checkpoint", query_path(checkpoint))
    if name:
        return QueryKey("name", name)
    if isinstance(target, str) and target:
        return QueryKey("target", query_path(target))
    return QueryKey("position", position)


# -- a query and a checkpoint ------------------------------------------------------------------

def checkpoint_key(query: Query, partly: bool = False) -> QueryKey | None:
    """The query's checkpoint as one directory, or None when it is not known statically.

    `partly`: a partly-known path (`f"{root}/chk"`) is a key too, its code standing for the
    unresolved parts; that holds within one file (one run: `root` is one value), not across
    files, and never for a path that changes on every run (the clock, a random id).
    """
    value = query.sink.checkpoint
    if partly and isinstance(value, Template) and query.sink.volatile is None:
        return QueryKey("checkpoint", str(normal_value(value)) or "/")
    if not isinstance(value, str) or not is_known(value) or not value.strip():
        return None
    return QueryKey("checkpoint", normal_path(value))


def owner(items: Sequence[T], key: Callable[[T], QueryKey | None], path: str) -> T | None:
    """Which of `items` (queries, or the queries a run of the job started, each with its
    `key`) writes to the checkpoint at `path`: by the whole path, as the only item, or by the
    path's last component (a checkpoint copied elsewhere for inspection); None when none, or
    several, fit."""
    wanted = normal_path(path)

    def location(item: T) -> str | None:
        found = key(item)
        if found is None or found.kind != "checkpoint" or not isinstance(found.value, str):
            return None
        return found.value

    exact = [item for item in items if location(item) == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(items) == 1:
        return items[0]
    base = wanted.rsplit("/", 1)[-1]
    by_name = [item for item in items
               if (location(item) or "").rsplit("/", 1)[-1] == base and location(item)]
    return by_name[0] if len(by_name) == 1 else None


# -- a query a person names --------------------------------------------------------------------

def named(query: Query, name: str) -> bool:
    """Whether `name` is the query's name (its `queryName`)."""
    return QueryKey("name", name) in keys(query)


def writes_checkpoint(query: Query, path: str) -> bool:
    """Whether the checkpoint a person names (`path`) is the query's: one directory however
    either is spelled, or a path known only at run time written as the code writes it."""
    value = query.sink.checkpoint
    if value is None:
        return False
    return path == str(value) or checkpoint_key(query) == QueryKey("checkpoint",
                                                                   normal_path(path))
