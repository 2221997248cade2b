"""State schema files (Spark's `SchemaHelper`): the key and value schema of a state store.

Binary, written with Java's `DataOutputStream`: `writeUTF` (2-byte length + modified UTF-8),
`writeInt`, `writeShort`, all big-endian.

* v1: UTF("v1") UTF(key json) UTF(value json)
* v2: UTF("v2") chunked(key json) chunked(value json), chunked = INT(n) then n UTF chunks
* v3 (transformWithState, `_stateSchema/<store>/<batch>_<uuid>`): UTF("v3") INT(families),
  per family UTF(name) SHORT(key id) chunked(key) SHORT(value id) chunked(value)
  chunked(key encoder spec) chunked(user key schema)
"""

from __future__ import annotations

import json
import struct

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.model import Field, StateSchema

MAX_VERSION = 3


class _Reader:
    def __init__(self, path: str, data: bytes) -> None:
        self.path = path
        self.data = data
        self.pos = 0

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if size < 0 or end > len(self.data):
            raise CheckpointError(self.path, f"state schema file ends early at byte {self.pos} "
                                  f"of {len(self.data)} (truncated?)")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def short(self) -> int:
        return struct.unpack(">H", self.take(2))[0]

    def int(self) -> int:
        return struct.unpack(">i", self.take(4))[0]

    def utf(self) -> str:
        raw = self.take(self.short())
        # Java's modified UTF-8: NUL as C0 80, supplementary characters as surrogate pairs.
        try:
            text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
            return text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeError as err:
            raise CheckpointError(self.path, f"not Java's modified UTF-8 at byte "
                                  f"{self.pos - len(raw) + err.start} (a corrupted state "
                                  "schema file?)") from None

    def chunked(self) -> str:
        count = self.int()
        if count < 0 or count > 10_000:
            raise CheckpointError(self.path, f"implausible chunk count {count} at byte "
                                  f"{self.pos - 4}; not a state schema file?")
        return "".join(self.utf() for _ in range(count))


def parse_state_schema(path: str, data: bytes, store: str) -> tuple[StateSchema, ...]:
    """The schemas in a schema file: one for v1/v2, one per column family for v3."""
    reader = _Reader(path, data)
    try:
        version_text = reader.utf()
    except CheckpointError:
        version_text = ""
    if not (version_text.startswith("v") and version_text[1:].isdigit()):
        raise CheckpointError(path, "does not start with a schema version like 'v2'; "
                              "not a state schema file?")
    version = int(version_text[1:])
    if version < 1 or version > MAX_VERSION:
        raise CheckpointError(path, f"state schema version v{version} is not one streamlint "
                              f"knows (v1-v{MAX_VERSION}); written by a newer Spark?")
    if version == 1:
        return (StateSchema(store, _fields(path, reader.utf()), _fields(path, reader.utf())),)
    if version == 2:
        return (StateSchema(store, _fields(path, reader.chunked()),
                            _fields(path, reader.chunked())),)
    families = []
    for _ in range(reader.int()):
        name = reader.utf()
        reader.short()
        key = _fields(path, reader.chunked())
        reader.short()
        value = _fields(path, reader.chunked())
        reader.chunked()  # key state encoder spec
        reader.chunked()  # user key encoder schema (map state) or "{    }"
        families.append(StateSchema(name, key, value))
    return tuple(families)


def _fields(path: str, text: str) -> tuple[Field, ...]:
    try:
        return fields_from_json(text)
    except ValueError as err:
        raise CheckpointError(path, f"a schema in the file {err}") from None


def fields_from_json(text: str) -> tuple[Field, ...]:
    """Fields of a Spark `StructType.json()` string (what `df.schema.json()` returns too).

    The `--confirm` path turns the schemas Spark derives from new code into these, for
    `streamlint.checkpoint.compare.state_schema_findings`.
    """
    try:
        value = json.loads(text)
    except ValueError:
        raise ValueError("is not valid JSON") from None
    if not isinstance(value, dict) or value.get("type") != "struct":
        raise ValueError("is not a Spark struct type")
    fields = value.get("fields", ())
    if not isinstance(fields, list) or not all(
            isinstance(f, dict) and isinstance(f.get("name"), str) and "type" in f
            for f in fields):
        raise ValueError("has fields without a name and a type")
    return tuple(Field(f["name"], f["type"], bool(f.get("nullable", True))) for f in fields)


def type_text(spark_type: object) -> str:
    """Spark's simpleString of a JSON type: `struct<start:timestamp,end:timestamp>`."""
    if isinstance(spark_type, str):
        return {"long": "bigint", "integer": "int", "short": "smallint",
                "byte": "tinyint"}.get(spark_type, spark_type)
    if isinstance(spark_type, dict):
        kind = spark_type.get("type")
        if kind == "struct":
            inner = ",".join(f"{f.get('name')}:{type_text(f.get('type'))}"
                             for f in spark_type.get("fields") or () if isinstance(f, dict))
            return f"struct<{inner}>"
        if kind == "array":
            return f"array<{type_text(spark_type.get('elementType'))}>"
        if kind == "map":
            return (f"map<{type_text(spark_type.get('keyType'))},"
                    f"{type_text(spark_type.get('valueType'))}>")
        if kind == "udt":
            return type_text(spark_type.get("sqlType"))
    return json.dumps(spark_type)


def struct_text(fields: tuple[Field, ...] | None) -> str | None:
    """A schema as Spark prints it (`struct<key:string>`), None when not recorded."""
    if fields is None:
        return None
    return "struct<" + ",".join(f"{f.name}:{type_text(f.type)}" for f in fields) + ">"
