"""Canonical text for schemas, so a DDL string and the equivalent StructType compare equal."""

from __future__ import annotations

_TYPE_ALIASES = {
    "long": "bigint",
    "integer": "int",
    "short": "smallint",
    "byte": "tinyint",
    "real": "float",
    "dec": "decimal",
    "numeric": "decimal",
    "varchar": "string",
    "bool": "boolean",
}

# pyspark.sql.types class name -> Spark SQL type name
TYPE_CLASSES = {
    "StringType": "string",
    "LongType": "bigint",
    "IntegerType": "int",
    "ShortType": "smallint",
    "ByteType": "tinyint",
    "DoubleType": "double",
    "FloatType": "float",
    "BooleanType": "boolean",
    "TimestampType": "timestamp",
    "TimestampNTZType": "timestamp_ntz",
    "DateType": "date",
    "BinaryType": "binary",
    "DecimalType": "decimal",
    "NullType": "void",
}


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside <...> and (...)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def normalize_type(text: str) -> str:
    text = " ".join(text.strip().split())
    # Type names are case-insensitive, field names inside a struct are not: lower-case only
    # the type keywords, so `STRUCT<userId: INT>` and StructField("userId", ...) agree.
    lowered = text.lower()
    if lowered.startswith("struct<") and text.endswith(">"):
        return "struct<" + normalize_ddl(text[len("struct<") : -1], inner=True) + ">"
    for outer in ("array<", "map<"):
        if lowered.startswith(outer) and text.endswith(">"):
            inner = split_top_level(text[len(outer) : -1])
            return outer + ",".join(normalize_type(t) for t in inner) + ">"
    base, _, rest = lowered.partition("(")
    base = _TYPE_ALIASES.get(base.strip(), base.strip())
    if base == "decimal" and not rest:
        return "decimal(10,0)"
    return base + ("(" + rest.replace(" ", "") if rest else "")


def normalize_ddl(ddl: str, inner: bool = False) -> str:
    """`id LONG, key STRING` -> `id:bigint,key:string`; `struct<...>` is unwrapped."""
    text = ddl.strip()
    if not inner and text.lower().startswith("struct<") and text.endswith(">"):
        text = text[len("struct<") : -1]
    fields = []
    for part in split_top_level(text):
        part = part.replace("`", "")
        if ":" in part.split("<")[0] and not part.split(":", 1)[0].strip().count(" "):
            name, _, type_text = part.partition(":")
        else:
            name, _, type_text = part.partition(" ")
        type_text = type_text.strip()
        not_null = type_text.upper().endswith("NOT NULL")
        if not_null:
            type_text = type_text[: -len("NOT NULL")]
        suffix = " not null" if not_null else ""
        fields.append(f"{name.strip()}:{normalize_type(type_text)}{suffix}")
    return ",".join(fields)


def schema_fields(normalized: str) -> tuple[tuple[str, str], ...]:
    """A normalized schema (`normalize_ddl`: `id:bigint,key:string`) as (name, type) pairs in
    their order; a field written without a type has the type ""."""
    return tuple((name, type_text) for name, _, type_text in
                 (field.partition(":") for field in split_top_level(normalized)))
