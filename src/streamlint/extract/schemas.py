"""Schemas as the job declares them (StructType builders, DDL strings) in canonical text."""

from __future__ import annotations

from typing import Any

from streamlint.extract.columns import plain
from streamlint.extract.spark_values import Schema
from streamlint.model import Template, Unknown
from streamlint.model.schema_text import normalize_ddl, normalize_type, split_top_level


def schema_type(value: str | Schema) -> str:
    """A schema argument as one type: `struct<...>` (or `array<...>`, `map<...>`)."""
    if isinstance(value, Schema):
        return value.text
    text = value.strip()
    if text.lower().startswith(("struct<", "array<", "map<")):
        return normalize_type(text)
    return "struct<" + normalize_ddl(text) + ">"


# Sources whose schema Spark fixes, whatever the job declares.
FIXED_COLUMNS = {
    "kafka": ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType"),
    "rate": ("timestamp", "value"),
    "rate-micro-batch": ("timestamp", "value"),
    "socket": ("value",),
}


def schema_columns(schema: Any) -> tuple[str, ...]:
    """The columns a source with a declared schema produces ("*": not declared, unknown)."""
    if not isinstance(schema, str) or not schema:
        return ("*",)
    return tuple(field.split(":", 1)[0] for field in split_top_level(schema))


def schema_of(value: Any) -> Any:
    """A declared schema (StructType or DDL string) in canonical text."""
    if isinstance(value, Schema):
        text = value.text
        if text.startswith("struct<"):
            text = text[len("struct<") : -1]
        return text
    if isinstance(value, str):
        return normalize_ddl(value)
    value = plain(value)
    if isinstance(value, Template):
        return Unknown(str(value))
    return value if value is None or isinstance(value, Unknown) else Unknown(repr(value))


def schema_add(schema: Schema, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`StructType().add("a", StringType())` builder style."""
    if args and isinstance(args[0], Schema):
        field = args[0].text
    elif args:
        data_type = args[1] if len(args) > 1 else kwargs.get("data_type", kwargs.get("dataType"))
        nullable = args[2] if len(args) > 2 else kwargs.get("nullable", True)
        type_text = (data_type.text if isinstance(data_type, Schema)
                     else normalize_type(str(data_type)))
        field = f"{args[0]}:{type_text}" + ("" if nullable is not False else " not null")
    else:
        return Unknown("StructType.add()")
    inner = schema.text[len("struct<") : -1] if schema.text.startswith("struct<") else ""
    return Schema("struct<" + ",".join(p for p in (inner, field) if p) + ">")


def as_read_by_a_file_source(schema: Any) -> Any:
    """A file source's declared schema as Spark reads it: every field nullable
    (spark.sql.streaming.fileSource.schema.forceNullable, true since Spark 3.0; measured in
    tests/test_spark_stream_facts.py), nested fields too, so NOT NULL there is no part of
    what is read."""
    return schema.replace(" not null", "") if isinstance(schema, str) else schema
