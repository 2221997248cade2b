"""`checkpoint show` as plain JSON-ready data: one structure for both renderers."""

from __future__ import annotations

import datetime

from streamlint.checkpoint.model import Checkpoint, OffsetEntry, StatefulOperator, Store
from streamlint.checkpoint.state_schema import struct_text, type_text

SCHEMA_VERSION = 1


def iso_ms(ms: int | None) -> str | None:
    if ms is None:
        return None
    try:
        moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        # A Long that is no date (a hand-edited or corrupt log): the raw ms are still shown.
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def show_data(checkpoint: Checkpoint) -> dict:
    committed = checkpoint.last_committed
    commit = checkpoint.last_commit
    latest = checkpoint.latest_offsets
    pending = latest if latest is not None and latest is not committed else None
    return {
        "version": SCHEMA_VERSION,
        "path": checkpoint.path,
        "query_id": checkpoint.query_id,
        "last_committed_batch": checkpoint.last_committed_batch,
        "last_committed_timestamp_ms": committed.timestamp_ms if committed else None,
        "last_committed_timestamp": iso_ms(committed.timestamp_ms) if committed else None,
        "watermark_ms": committed.watermark_ms if committed else None,
        "next_watermark_ms": commit.next_watermark_ms if commit else None,
        "uncommitted_batches": list(checkpoint.uncommitted_batches),
        "retained": {
            "offsets": list(checkpoint.offset_batches) if checkpoint.offset_batches else None,
            "commits": list(checkpoint.commit_batches) if checkpoint.commit_batches else None,
        },
        "offset_log_version": committed.version if committed else None,
        "commit_log_version": commit.version if commit else None,
        "state_checkpoint_format": 2 if commit and commit.state_unique_ids is not None else 1,
        "sources": _sources(committed),
        "uncommitted_sources": _sources(pending) if pending else None,
        "sinks": list(commit.sinks) if commit else [],
        "conf": dict(sorted((committed or latest).conf)) if (committed or latest) else {},
        "operators": [_operator(op) for op in checkpoint.operators],
        "warnings": list(checkpoint.warnings),
    }


def _sources(entry: OffsetEntry | None) -> list[dict]:
    if entry is None:
        return []
    return [{"index": s.index, "name": s.name, "kind": s.kind, "offset": s.offset}
            for s in entry.sources]


def _operator(op: StatefulOperator) -> dict:
    return {
        "id": op.id,
        "name": op.name,
        "name_from": op.name_source,
        "partitions": op.partitions,
        "stores": [_store(store) for store in op.stores],
        "properties": op.properties,
    }


def _store(store: Store) -> dict:
    data: dict = {"name": store.name, "schema_file": store.schema_path,
                  "key_schema": None, "value_schema": None}
    files = store.files
    if files is not None:
        data["state_files"] = {
            "committed_version": files.committed_version,
            "latest_version_partition_0": files.latest_version,
            "committed_version_kinds_partition_0": list(files.kinds),
            "partitions_checked": files.partitions_checked,
            "partitions_missing_committed_version": list(files.missing),
        }
    if len(store.schemas) == 1:
        schema = store.schemas[0]
        data["key_schema"] = struct_text(schema.key)
        data["value_schema"] = struct_text(schema.value)
        data["key_fields"] = _fields(schema.key)
        data["value_fields"] = _fields(schema.value)
    elif store.schemas:  # transformWithState: one column family per state variable
        data["column_families"] = [
            {"name": s.name, "key_schema": struct_text(s.key),
             "value_schema": struct_text(s.value)} for s in store.schemas]
    return data


def _fields(fields: tuple | None) -> list[dict] | None:
    if fields is None:
        return None
    return [{"name": f.name, "type": type_text(f.type), "nullable": f.nullable} for f in fields]
