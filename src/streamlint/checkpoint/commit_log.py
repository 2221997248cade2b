"""`commits/<N>`: the batches that finished (Spark's `CommitLog`).

v1 holds the next batch's watermark; v2 (state checkpoint format 2, Spark 4.0+) adds the
unique ids of the committed state files; v3 (sink evolution, Spark 4.3) adds named sinks.
"""

from __future__ import annotations

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.fs import CheckpointFS
from streamlint.checkpoint.logs import parse_object, read_text, split_version
from streamlint.checkpoint.model import CommitEntry

MAX_VERSION = 3


def read_commit_entry(fs: CheckpointFS, directory: str, batch_id: int) -> CommitEntry:
    path = fs.join(directory, str(batch_id))
    version, lines = split_version(path, read_text(fs, path), MAX_VERSION)
    if not lines or not lines[0].strip():
        raise CheckpointError(path, "ends after the version line: no commit metadata")
    metadata = parse_object(path, lines[0], "the commit metadata (line 2)")
    watermark = metadata.get("nextBatchWatermarkMs")
    ids = metadata.get("stateUniqueIds")
    sinks = metadata.get("sinkMetadataMap") or {}
    return CommitEntry(
        batch_id=batch_id,
        version=version,
        next_watermark_ms=watermark if isinstance(watermark, int) else None,
        state_unique_ids=ids if isinstance(ids, dict) else None,
        sinks=tuple(sorted(sinks)) if isinstance(sinks, dict) else (),
        path=path,
    )
