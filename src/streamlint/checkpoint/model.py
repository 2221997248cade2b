"""What a checkpoint holds, as plain records: the only thing the commands and renderers see."""

from __future__ import annotations

from streamlint.model.records import record


@record
class SourceOffset:
    """One source's entry in an offsets file: its position in the log and the raw text."""

    index: int
    name: str | None  # named sources (offset log v2, Spark 4.2+)
    offset: str  # exactly as the log holds it; "-" when the source had no offset yet
    kind: str  # kafka, file, number, delta, json, none, unreadable (source_kinds)


@record
class OffsetEntry:
    """One `offsets/<N>` file: batch id, its metadata line, the sources in order."""

    batch_id: int
    version: int
    watermark_ms: int
    timestamp_ms: int
    conf: tuple[tuple[str, str], ...]
    sources: tuple[SourceOffset, ...]
    path: str


@record
class CommitEntry:
    """One `commits/<N>` file."""

    batch_id: int
    version: int
    next_watermark_ms: int | None
    state_unique_ids: dict | None  # checkpoint format v2
    sinks: tuple[str, ...]  # named sinks (commit log v3)
    path: str


@record
class Field:
    """One field of a state schema: Spark's JSON type text and nullability."""

    name: str
    type: object  # a type name ("long") or a nested JSON type (struct, array, map)
    nullable: bool


@record
class StateSchema:
    """A key/value schema pair of one store or column family."""

    name: str  # store name, or column family name (transformWithState)
    key: tuple[Field, ...] | None
    value: tuple[Field, ...] | None


@record
class Store:
    """One state store of an operator."""

    name: str
    schemas: tuple[StateSchema, ...]  # one for ordinary stores, one per family for TWS
    schema_path: str | None
    files: object = None  # streamlint.checkpoint.state_files.StoreFiles


@record
class StatefulOperator:
    """A stateful operator as the checkpoint records it."""

    id: int
    name: str | None  # from operator metadata (4.0+) or inferred (3.5)
    name_source: str  # "metadata" or "inferred"
    partitions: int | None
    stores: tuple[Store, ...]
    properties: dict | None  # transformWithState operator properties


@record
class Checkpoint:
    """Everything `checkpoint show` reports, read from the latest log entries only."""

    path: str
    query_id: str | None
    offset_batches: tuple[int, int] | None  # (min, max) retained ids
    commit_batches: tuple[int, int] | None
    last_committed: OffsetEntry | None
    last_commit: CommitEntry | None
    latest_offsets: OffsetEntry | None  # the newest planned batch (may be uncommitted)
    uncommitted_batches: tuple[int, ...]
    operators: tuple[StatefulOperator, ...]
    warnings: tuple[str, ...]

    @property
    def last_committed_batch(self) -> int | None:
        return self.last_commit.batch_id if self.last_commit else None
