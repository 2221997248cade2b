"""Spark's own rule for a state schema change: `StateSchemaCompatibilityChecker`.

Spark compares the stored key (and value) schema with the one the new code derives using
`DataType.equalsIgnoreNameAndCompatibleNullability(from = new, to = stored)`:

* the number of fields and every field's type must match, recursively (struct, array, map);
* field names do not matter (a renamed grouping column restarts, reading the old state);
* nullability: a field stored as nullable accepts a nullable or non-nullable new field; a field
  stored as non-nullable refuses a nullable one (the new code's rows could hold nulls that the
  stored rows' layout cannot). Arrays' `containsNull` and maps' `valueContainsNull` likewise.

[src: apache/spark `state/StateSchemaCompatibilityChecker.scala` `schemasCompatible`,
`types/DataType.scala` `equalsIgnoreCompatibleNullability`]. This is the function the Spark
confirmation (`diff --confirm`) calls with the schemas Spark derives from the new code; the
static comparison calls it with what the extractor knows.
"""

from __future__ import annotations

from streamlint.checkpoint.model import Field
from streamlint.checkpoint.state_schema import struct_text, type_text


def schema_problems(stored: tuple[Field, ...], new: tuple[Field, ...]) -> list[str]:
    """Why Spark would refuse `new` against `stored`; empty when it accepts it."""
    if len(stored) != len(new):
        return [f"{len(stored)} fields stored ({struct_text(stored)}), {len(new)} now "
                f"({struct_text(new)})"]
    problems = []
    for position, (old, now) in enumerate(zip(stored, new, strict=True)):
        label = f"field {position + 1} ({old.name}" + (
            f", now {now.name})" if now.name != old.name else ")")
        if now.nullable and not old.nullable:
            problems.append(f"{label} was stored NOT NULL and is nullable now")
        problems += [f"{label}: {p}" for p in _type_problems(old.type, now.type)]
    return problems


def _type_problems(stored: object, new: object) -> list[str]:
    if isinstance(stored, dict) and isinstance(new, dict) and stored.get("type") == new.get(
            "type"):
        kind = stored.get("type")
        if kind == "struct":
            return schema_problems(_fields(stored), _fields(new))
        if kind == "array":
            out = _type_problems(stored.get("elementType"), new.get("elementType"))
            if new.get("containsNull") and not stored.get("containsNull"):
                out.append("array elements were stored NOT NULL and are nullable now")
            return out
        if kind == "map":
            out = _type_problems(stored.get("keyType"), new.get("keyType"))
            out += _type_problems(stored.get("valueType"), new.get("valueType"))
            if new.get("valueContainsNull") and not stored.get("valueContainsNull"):
                out.append("map values were stored NOT NULL and are nullable now")
            return out
        if kind == "udt":
            return _type_problems(stored.get("sqlType"), new.get("sqlType"))
    if type_text(stored) != type_text(new):
        return [f"type {type_text(stored)} is {type_text(new)} now"]
    return []


def _fields(struct: dict) -> tuple[Field, ...]:
    return tuple(Field(f["name"], f["type"], bool(f.get("nullable", True)))
                 for f in struct.get("fields", ()))


def compatible(stored: tuple[Field, ...], new: tuple[Field, ...]) -> bool:
    return not schema_problems(stored, new)
