"""`offsets/<N>`: the write-ahead log of planned batches (Spark's `OffsetSeqLog`).

v1 (all versions): `v1`, the batch metadata JSON, then one line per source in source order.
v2 (Spark 4.2+, named sources): the same metadata, then `name:offset` lines split at the first
colon. A source without an offset yet is written as `-`.
"""

from __future__ import annotations

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.fs import CheckpointFS
from streamlint.checkpoint.logs import parse_object, read_text, split_version
from streamlint.checkpoint.model import OffsetEntry, SourceOffset
from streamlint.checkpoint.source_kinds import offset_kind

MAX_VERSION = 2
VOID_OFFSET = "-"


def read_offset_entry(fs: CheckpointFS, directory: str, batch_id: int) -> OffsetEntry:
    path = fs.join(directory, str(batch_id))
    return parse_offset_entry(path, batch_id, read_text(fs, path))


def parse_offset_entry(path: str, batch_id: int, text: str) -> OffsetEntry:
    version, lines = split_version(path, text, MAX_VERSION)
    if not lines:
        raise CheckpointError(path, "ends after the version line: no batch metadata")
    metadata = parse_object(path, lines[0], "the batch metadata (line 2)")
    conf = metadata.get("conf") or {}
    if not isinstance(conf, dict):
        raise CheckpointError(path, "the batch metadata's 'conf' is not a JSON object")
    sources = []
    for index, line in enumerate(lines[1:]):
        name: str | None = None
        offset = line
        if version >= 2:
            name, sep, offset = line.partition(":")
            if not sep:
                raise CheckpointError(path, f"line {index + 3} {line[:60]!r} is not "
                                      "'name:offset' as offset log v2 writes")
        sources.append(SourceOffset(index, name, offset, offset_kind(offset)))
    return OffsetEntry(
        batch_id=batch_id,
        version=version,
        watermark_ms=_int(path, metadata, "batchWatermarkMs"),
        timestamp_ms=_int(path, metadata, "batchTimestampMs"),
        conf=tuple((str(k), str(v)) for k, v in conf.items()),
        sources=tuple(sources),
        path=path,
    )


def _int(path: str, metadata: dict, key: str) -> int:
    value = metadata.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise CheckpointError(path, f"the batch metadata's {key!r} is not a number")
    return value
