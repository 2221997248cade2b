"""Which query of the new job restarts from a given checkpoint."""

from __future__ import annotations

from streamlint.checkpoint.fs import normal_path
from streamlint.errors import UsageError
from streamlint.model import JobFile, Query


def query_for_checkpoint(job: JobFile, checkpoint_path: str) -> Query:
    """The query whose checkpointLocation is this checkpoint; the only query if there is one.

    A checkpoint copied elsewhere for inspection still matches by its last path component.
    """
    if not job.queries:
        raise UsageError(f"{job.path}: no streaming query found")
    wanted = normal_path(checkpoint_path)
    exact = [q for q in job.queries if isinstance(q.sink.checkpoint, str)
             and normal_path(q.sink.checkpoint) == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(job.queries) == 1:
        return job.queries[0]
    base = wanted.rsplit("/", 1)[-1]
    by_name = [q for q in job.queries if isinstance(q.sink.checkpoint, str)
               and normal_path(q.sink.checkpoint).rsplit("/", 1)[-1] == base]
    if len(by_name) == 1:
        return by_name[0]
    known = ", ".join(f"{q.label} ({q.sink.checkpoint})" for q in job.queries)
    raise UsageError(f"{job.path}: {len(job.queries)} queries and none writes to the "
                     f"checkpoint {checkpoint_path} ({known})")
