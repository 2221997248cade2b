"""Which query of the new job restarts from a given checkpoint."""

from __future__ import annotations

from streamlint.model import JobFile, Query
from streamlint.model.errors import UsageError
from streamlint.model.identity import checkpoint_key, owner


def query_for_checkpoint(job: JobFile, checkpoint_path: str) -> Query:
    """The query whose checkpointLocation is this checkpoint; the only query if there is one.

    A checkpoint copied elsewhere for inspection still matches by its last path component
    (`streamlint.model.identity.owner`, as a Spark run's queries are matched).
    """
    if not job.queries:
        raise UsageError(f"{job.path}: no streaming query found")
    found = owner(job.queries, checkpoint_key, checkpoint_path)
    if found is not None:
        return found
    known = ", ".join(f"{q.label} ({q.sink.checkpoint})" for q in job.queries)
    raise UsageError(f"{job.path}: {len(job.queries)} queries and none writes to the "
                     f"checkpoint {checkpoint_path} ({known})")
