"""Stateful operators under `state/`: names, stores, partitions and their schemas.

Spark 4.0+ records each operator in `state/<op>/_metadata/metadata` (v1) or, for
transformWithState, `state/<op>/_metadata/v2/<batch>` (v2, with schema file paths). Spark 3.5
has no operator metadata, so the name is inferred from the store layout and the schemas, as
the state data source of 4.x would report it. Schema files live under partition 0 only.
"""

from __future__ import annotations

import json

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.fs import CheckpointFS
from streamlint.checkpoint.logs import batch_ids, parse_object, read_text, split_version
from streamlint.checkpoint.model import CommitEntry, StatefulOperator, StateSchema, Store
from streamlint.checkpoint.state_files import check_store
from streamlint.checkpoint.state_schema import parse_state_schema
from streamlint.model.records import replace

METADATA_MAX_VERSION = 2
JOIN_STORES = ("left-keyToNumValues", "left-keyWithIndexToValue",
               "right-keyToNumValues", "right-keyWithIndexToValue")

# Operator names as Spark's operator metadata spells them -> streamlint's operator kinds.
KIND_BY_NAME = {
    "stateStoreSave": "aggregation",
    "sessionWindowStateStoreSaveExec": "aggregation",
    "dedupe": "deduplication",
    "dedupeWithinWatermark": "deduplication",
    "symmetricHashJoin": "join",
    "flatMapGroupsWithState": "arbitrary_state",
    "applyInPandasWithState": "arbitrary_state",
    "transformWithStateExec": "arbitrary_state",
    "transformWithStateInPandasExec": "arbitrary_state",
    "transformWithStateInPySparkExec": "arbitrary_state",
}
ARBITRARY_STATE_3_5 = "flatMapGroupsWithState or applyInPandasWithState"


def operator_kind(name: str | None) -> str:
    if name == ARBITRARY_STATE_3_5:
        return "arbitrary_state"
    if name and name.startswith("transformWithState"):
        return "arbitrary_state"
    return KIND_BY_NAME.get(name or "", "unknown")


def read_operators(fs: CheckpointFS, root: str, commit: CommitEntry | None = None
                   ) -> tuple[StatefulOperator, ...]:
    state = fs.join(root, "state")
    names = fs.list_names(state)
    if not names:
        return ()
    operators = (_read_operator(fs, fs.join(state, str(op)), op)
                 for op in sorted(int(n) for n in names if n.isdigit()))
    return tuple(_with_files(fs, fs.join(state, str(op.id)), op, commit) for op in operators)


def _with_files(fs: CheckpointFS, directory: str, op: StatefulOperator,
                commit: CommitEntry | None) -> StatefulOperator:
    """Each store's state files checked against the last committed batch."""
    partitions = sorted(int(n) for n in fs.list_names(directory) or [] if n.isdigit())
    if not partitions:
        return op
    if not fs.cheap_listing:
        partitions = partitions[:1]
    ids = (commit.state_unique_ids or {}).get(str(op.id)) if commit else None
    stores = []
    for index, store in enumerate(op.stores):
        unique = None
        if isinstance(ids, list):
            unique = [p[index] if isinstance(p, list) and index < len(p) else None
                      for p in ids]
        files = check_store(fs, directory, store.name, partitions,
                            commit.batch_id if commit else None, unique)
        stores.append(replace(store, files=files))
    return replace(op, stores=tuple(stores))


def _read_operator(fs: CheckpointFS, directory: str, op_id: int) -> StatefulOperator:
    entries = fs.list_names(directory) or []
    partition_dirs = sum(1 for n in entries if n.isdigit())
    metadata = _operator_metadata(fs, directory) if "_metadata" in entries else None
    if metadata is not None:
        info = metadata.get("operatorInfo") or {}
        name = info.get("operatorName") if isinstance(info, dict) else None
        raw_stores = metadata.get("stateStoreInfo") or []
        if not isinstance(info, dict) or not isinstance(name, str | None) or not isinstance(
                raw_stores, list):
            raise CheckpointError(fs.join(directory, "_metadata"), "the operator metadata has "
                                  "an operatorInfo or stateStoreInfo Spark does not write; "
                                  "a corrupted file?")
        store_infos = [s for s in raw_stores if isinstance(s, dict)]
        stores = tuple(_store(fs, directory, str(s.get("storeName", "default")),
                              s.get("stateSchemaFilePaths")) for s in store_infos)
        partitions = next((s.get("numPartitions") for s in store_infos
                           if isinstance(s.get("numPartitions"), int)), None)
        properties = _properties(metadata.get("operatorPropertiesJson"))
        return StatefulOperator(op_id, name, "metadata", partitions or partition_dirs or None,
                                stores, properties)
    store_names = _store_names(fs, directory)
    stores = tuple(_store(fs, directory, store, None) for store in store_names)
    return StatefulOperator(op_id, _infer_name(stores), "inferred", partition_dirs or None,
                            stores, None)


def _operator_metadata(fs: CheckpointFS, directory: str) -> dict | None:
    meta_dir = fs.join(directory, "_metadata")
    entries = fs.list_names(meta_dir) or []
    if "v2" in entries:
        ids = batch_ids(fs, fs.join(meta_dir, "v2")) or []
        if ids:
            return _read_metadata_file(fs, fs.join(meta_dir, "v2", str(ids[-1])))
    if "metadata" in entries:
        return _read_metadata_file(fs, fs.join(meta_dir, "metadata"))
    return None


def _read_metadata_file(fs: CheckpointFS, path: str) -> dict:
    _, lines = split_version(path, read_text(fs, path), METADATA_MAX_VERSION)
    if not lines:
        raise CheckpointError(path, "ends after the version line: no operator metadata")
    return parse_object(path, lines[0], "the operator metadata (line 2)")


def _properties(text: object) -> dict | None:
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _store_names(fs: CheckpointFS, directory: str) -> tuple[str, ...]:
    """Store names from partition 0's layout: join stores are subdirectories, else default."""
    entries = fs.list_names(fs.join(directory, "0")) or []
    joined = tuple(s for s in JOIN_STORES if s in entries)
    return joined or ("default",)


def _store(fs: CheckpointFS, directory: str, store: str,
           schema_paths: object) -> Store:
    if isinstance(schema_paths, list) and schema_paths:
        path = _local_schema_path(fs, directory, store, str(schema_paths[-1]))
    else:
        part0 = fs.join(directory, "0")
        base = part0 if store == "default" else fs.join(part0, store)
        path = fs.join(base, "_metadata", "schema")
        if "schema" not in (fs.list_names(fs.join(base, "_metadata")) or ()):
            return Store(store, (), None)
    if path is None:
        return Store(store, (), None)
    return Store(store, parse_state_schema(path, fs.read_bytes(path), store), path)


def _local_schema_path(fs: CheckpointFS, directory: str, store: str,
                       recorded: str) -> str | None:
    """A v3 schema file named by operator metadata v2, found in this checkpoint.

    The metadata records absolute URIs, which point at the old place of a copied or moved
    checkpoint; the file name (`<batch>_<uuid>`) is what identifies it.
    """
    schema_dir = fs.join(directory, "_stateSchema", store)
    names = fs.list_names(schema_dir) or []
    wanted = recorded.rstrip("/").rsplit("/", 1)[-1]
    if wanted in names:
        return fs.join(schema_dir, wanted)
    candidates = [n for n in names if n.split("_", 1)[0].isdigit() and not n.endswith(".crc")]
    if not candidates:
        return None
    return fs.join(schema_dir, max(candidates, key=lambda n: int(n.split("_", 1)[0])))


def _infer_name(stores: tuple[Store, ...]) -> str | None:
    """Spark 3.5 has no operator metadata: tell the operator by its stores and value schema."""
    if {s.name for s in stores} == set(JOIN_STORES):
        return "symmetricHashJoin"
    schemas: tuple[StateSchema, ...] = stores[0].schemas if stores else ()
    if not schemas or schemas[0].value is None:
        return None
    value_names = [f.name for f in schemas[0].value]
    if value_names == ["__dummy__"]:
        return "dedupe"
    if value_names == ["expiresAtMicros"]:
        return "dedupeWithinWatermark"
    if value_names[:1] == ["groupState"] and "timeoutTimestamp" in value_names:
        return ARBITRARY_STATE_3_5
    return "stateStoreSave"
