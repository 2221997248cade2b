"""The state key/value schemas Spark wrote into a checkpoint, per stateful operator.

A small reader of Spark's schema files (FORMAT.md 8.3): v1/v2 `state/<op>/0/[<store>/]_metadata/
schema` and v3 `state/<op>/_stateSchema/<store>/<batch>_<uuid>` (transformWithState). Kept here
until the checkpoint readers in `streamlint.checkpoint` can serve it.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from streamlint.records import record


@record
class StoreSchema:
    operator: int
    store: str  # the store or (v3) column family name
    key: str  # Spark's simpleString of the key schema, nullability left out
    value: str


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def utf(self) -> str:
        (size,) = struct.unpack_from(">H", self.data, self.pos)
        self.pos += 2
        text = self.data[self.pos:self.pos + size].decode("utf-8", errors="replace")
        self.pos += size
        return text

    def int(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return value

    def short(self) -> int:
        (value,) = struct.unpack_from(">h", self.data, self.pos)
        self.pos += 2
        return value

    def chunked(self) -> str:
        return "".join(self.utf() for _ in range(self.int()))


def simple_string(schema_json: str) -> str:
    """`struct<a:bigint,b:string>` from a StructType's JSON (nullability differs by Spark
    version for the same query, so it is left out)."""
    try:
        return _simple(json.loads(schema_json))
    except (ValueError, KeyError, TypeError):
        return schema_json


def _simple(node: object) -> str:
    if isinstance(node, str):
        return {"long": "bigint", "integer": "int", "short": "smallint", "byte": "tinyint"}.get(
            node, node)
    assert isinstance(node, dict)
    kind = node["type"]
    if kind == "struct":
        return "struct<" + ",".join(f"{f['name']}:{_simple(f['type'])}"
                                    for f in node["fields"]) + ">"
    if kind == "array":
        return f"array<{_simple(node['elementType'])}>"
    if kind == "map":
        return f"map<{_simple(node['keyType'])},{_simple(node['valueType'])}>"
    return str(kind)


def read_schema_file(path: Path, operator: int, store: str) -> list[StoreSchema]:
    reader = _Reader(path.read_bytes())
    version = reader.utf()
    if version == "v1":
        return [StoreSchema(operator, store, simple_string(reader.utf()),
                            simple_string(reader.utf()))]
    if version == "v2":
        return [StoreSchema(operator, store, simple_string(reader.chunked()),
                            simple_string(reader.chunked()))]
    if version == "v3":
        out = []
        for _ in range(reader.int()):
            family = reader.utf()
            reader.short()
            key = reader.chunked()
            reader.short()
            value = reader.chunked()
            reader.chunked()  # key state encoder spec
            reader.chunked()  # user key encoder schema
            if not family.startswith("$"):  # timers and row counters are Spark's own
                out.append(StoreSchema(operator, family, simple_string(key),
                                       simple_string(value)))
        return out
    return []


def read_state_schemas(checkpoint: Path) -> list[StoreSchema]:
    """Every stateful operator's schemas in `checkpoint` (the newest v3 file per store)."""
    state = checkpoint / "state"
    if not state.is_dir():
        return []
    out: list[StoreSchema] = []
    for op_dir in sorted((d for d in state.iterdir() if d.name.isdigit()), key=lambda d:
                         int(d.name)):
        operator = int(op_dir.name)
        v3 = op_dir / "_stateSchema"
        if v3.is_dir():
            for store_dir in sorted(v3.iterdir()):
                files = sorted(store_dir.iterdir(), key=lambda p: (_batch(p.name), p.name))
                files = [f for f in files if not f.name.startswith(".")]
                if files:
                    out.extend(read_schema_file(files[-1], operator, store_dir.name))
            continue
        part0 = op_dir / "0"
        for schema in sorted(part0.glob("**/_metadata/schema")):
            parent = schema.parent.parent
            store = "default" if parent == part0 else parent.name
            out.extend(read_schema_file(schema, operator, store))
    return out


def _batch(name: str) -> int:
    head = name.split("_", 1)[0]
    return int(head) if head.isdigit() else -1
