"""`from_avro` / `to_avro` during a `--confirm` run: the same records, carried as JSON.

The stand-in Kafka source writes JSON values built from the schemas the job parses, and the
Avro data source (the spark-avro package) is not on this machine: a job that decodes its Kafka
values with `from_avro(col, schema)` failed before its queries (AVRO_NOT_LOADED_SQL_FUNCTIONS_
UNUSABLE). Here `from_avro(col, avro_schema)` becomes `from_json(CAST(col AS STRING), T)` with
T the Spark type Spark's own Avro reader gives that schema (record → struct, long → bigint,
a union with null → the nullable type, logical types → timestamp, date, decimal), so the
query's columns and its state have the types they have in production; `to_avro(col)`
becomes `to_json(col)`. Each use is named in the report's warnings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_PRIMITIVE = {"string": "string", "int": "int", "long": "bigint", "float": "float",
              "double": "double", "boolean": "boolean", "bytes": "binary", "null": "void"}
_LOGICAL = {"timestamp-millis": "timestamp", "timestamp-micros": "timestamp",
            "local-timestamp-millis": "timestamp_ntz", "local-timestamp-micros": "timestamp_ntz",
            "date": "date"}


def spark_type(schema: Any, named: dict[str, str] | None = None) -> str:
    """An Avro schema (parsed JSON) as a Spark SQL type string; ValueError when it is not
    one this reads."""
    named = {} if named is None else named
    if isinstance(schema, str):
        if schema in _PRIMITIVE:
            return _PRIMITIVE[schema]
        if schema in named:
            return named[schema]
        raise ValueError(f"unknown Avro type {schema!r}")
    if isinstance(schema, list):  # a union: [null, T] is a nullable T
        kinds = [s for s in schema if s != "null"]
        if len(kinds) != 1:
            raise ValueError("a union of several types")
        return spark_type(kinds[0], named)
    if not isinstance(schema, dict):
        raise ValueError(f"not an Avro schema: {schema!r}")
    kind = schema.get("type")
    logical = schema.get("logicalType")
    if logical in _LOGICAL:
        return _LOGICAL[logical]
    if logical == "decimal":
        return f"decimal({int(schema.get('precision', 10))},{int(schema.get('scale', 0))})"
    if kind == "record":
        fields = ", ".join(f"`{f['name']}`: {spark_type(f['type'], named)}"
                           for f in schema.get("fields", []))
        result = f"struct<{fields}>"
        named[str(schema.get("name", ""))] = result
        return result
    if kind == "array":
        return f"array<{spark_type(schema['items'], named)}>"
    if kind == "map":
        return f"map<string, {spark_type(schema['values'], named)}>"
    if kind == "enum":
        return "string"
    if kind == "fixed":
        return "binary"
    return spark_type(kind, named)


def stand_ins(original: tuple[Callable[..., Any], Callable[..., Any]],
              warn: Callable[[str], None]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """`from_avro` and `to_avro` through JSON; `original` (pyspark's two functions) where
    the schema is not one this reads."""
    from pyspark.sql import functions

    def from_avro(data: Any, jsonFormatSchema: str, options: Any = None) -> Any:  # noqa: N803
        try:
            target = spark_type(json.loads(jsonFormatSchema))
        except (ValueError, TypeError, KeyError):
            return original[0](data, jsonFormatSchema, options)
        warn("from_avro: the stand-in Kafka source carries JSON, not Avro; the value was read "
             f"with from_json as {target}, the type Spark's Avro reader gives its schema")
        column = functions.col(data) if isinstance(data, str) else data
        # pyspark's from_json as the job sees it: the sandbox learns the fields it parses.
        return functions.from_json(column.cast("string"), target)

    def to_avro(data: Any, jsonFormatSchema: str = "") -> Any:  # noqa: N803
        warn("to_avro: written with to_json (the stand-in sink compares rows, not bytes)")
        return functions.to_json(functions.col(data) if isinstance(data, str) else data)

    return from_avro, to_avro
