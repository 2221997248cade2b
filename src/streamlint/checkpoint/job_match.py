"""Which query of the new job restarts from a given checkpoint."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from streamlint.model import JobFile, Query
from streamlint.model.errors import UsageError
from streamlint.model.paths import normal_path

T = TypeVar("T")


def query_for_checkpoint(job: JobFile, checkpoint_path: str) -> Query:
    """The query whose checkpointLocation is this checkpoint; the only query if there is one.

    A checkpoint copied elsewhere for inspection still matches by its last path component.
    """
    if not job.queries:
        raise UsageError(f"{job.path}: no streaming query found")
    found = match_checkpoint(job.queries, lambda q: q.sink.checkpoint, checkpoint_path)
    if found is not None:
        return found
    known = ", ".join(f"{q.label} ({q.sink.checkpoint})" for q in job.queries)
    raise UsageError(f"{job.path}: {len(job.queries)} queries and none writes to the "
                     f"checkpoint {checkpoint_path} ({known})")


def match_checkpoint(items: Sequence[T], checkpoint_of: Callable[[T], object],
                     checkpoint_path: str) -> T | None:
    """The item writing to `checkpoint_path`: by the whole path, as the only item, or by the
    path's last component; None when none (or several) fit. Shared by the static pairing and
    the queries a Spark run of the job started (`diff --checkpoint --confirm`)."""
    wanted = normal_path(checkpoint_path)

    def location(item: T) -> str | None:
        value = checkpoint_of(item)
        return normal_path(value) if isinstance(value, str) else None

    exact = [item for item in items if location(item) == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(items) == 1:
        return items[0]
    base = wanted.rsplit("/", 1)[-1]
    by_name = [item for item in items
               if (location(item) or "").rsplit("/", 1)[-1] == base and location(item)]
    return by_name[0] if len(by_name) == 1 else None
