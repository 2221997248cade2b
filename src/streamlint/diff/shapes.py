"""What the differ reads off two query shapes: how a value, a schema, a sink or a list of
sources compares, as plain functions (`diff.compare` turns their answers into changes)."""

from __future__ import annotations

import difflib
from typing import Any

from streamlint.diff.render import Code, code, static_on_text
from streamlint.diff.values import undecidable
from streamlint.model import External, Query, Source, is_known
from streamlint.model.expr import render
from streamlint.model.schema_text import schema_fields
from streamlint.rulebook.change import SINK_KINDS

FILE_SINKS = {"parquet", "json", "csv", "orc", "text", "avro"}
TABLE_SINKS = {"org.apache.hudi": "hudi", "org.apache.iceberg": "iceberg"}






def _origin(query: Query) -> str | None:
    """The note of the code a query's DataFrame comes from when streamlint cannot follow it
    (no source known), else None."""
    if query.sources:
        return None
    return next((text for text, _ in query.unresolved if isinstance(text, External)), None)


def _known(value: Any) -> bool:
    if isinstance(value, Code):
        return value.known
    if isinstance(value, tuple):
        return all(_known(v) for v in value)
    return is_known(value)


def _undecidable(old: Any, new: Any) -> bool:
    """Values not both known, and not certainly different. Rendered code with an unresolved
    part is never decided from its text; partly-known plain values are (`diff.values`)."""
    if _known(old) and _known(new):
        return False
    if _unknown_code(old) or _unknown_code(new):
        return True
    return undecidable(old, new)


def _unknown_code(value: Any) -> bool:
    if isinstance(value, Code):
        return not value.known
    return isinstance(value, tuple) and any(_unknown_code(v) for v in value)


def sink_kind(fmt: Any) -> str:
    """What a sink is, for the rules (`core.SINK_KINDS`)."""
    if not isinstance(fmt, str):
        return "unknown"
    if fmt in FILE_SINKS:
        return "file"
    if fmt in ("foreach", "foreachBatch"):
        return "foreach"
    # Iceberg and Hudi are table sinks like Delta (`org.apache.hudi` is Hudi's long name).
    fmt = TABLE_SINKS.get(fmt, fmt)
    return fmt if fmt in SINK_KINDS else "other"


def _conditions(filters: list[Any]) -> Code | None:
    if not filters:
        return None
    return code("; ".join(render(f.condition) for f in filters), *(f.condition for f in filters))


def _static(joins: list[Any]) -> Code | None:
    if not joins:
        return None
    parts = [static_on_text(o.on) for o in joins]
    shown = Code("; ".join(parts))
    shown.known = all(p.known for p in parts)
    return shown


# Formats that match a declared schema to the data by field name; others (csv) by position,
# where a field added or removed before the last shifts every later one.
BY_NAME_FORMATS = frozenset({"json", "parquet", "orc", "avro"})


def _schema_change(old: Any, new: Any, fmt: str = "") -> tuple[str, tuple[str, ...]]:
    """How a declared schema changed: only fields "added", only "removed" (the others kept
    with their types, in their order; for a format read by position, only at the end), or
    "other"; and the fields added or removed."""
    if not (isinstance(old, str) and isinstance(new, str) and is_known(old) and is_known(new)):
        return "other", ()
    before, after = list(schema_fields(old)), list(schema_fields(new))
    old_names, new_names = {f[0] for f in before}, {f[0] for f in after}
    kept_before = [f for f in before if f[0] in new_names]
    kept_after = [f for f in after if f[0] in old_names]
    if kept_before != kept_after:
        return "other", ()
    added = tuple(f[0] for f in after if f[0] not in old_names)
    removed = tuple(f[0] for f in before if f[0] not in new_names)
    if fmt.lower() not in BY_NAME_FORMATS and (after[:len(before)] != before
                                               and before[:len(after)] != after):
        return "other", ()  # read by position: a field moved every one after it
    if added and not removed:
        return "added", added
    if removed and not added:
        return "removed", removed
    return "other", ()


def _align(old: tuple, new: tuple, key: Any) -> list[tuple[Any, Any]]:
    """Pair equal elements first (so a dropped middle source is named as dropped), then the
    remaining ones by position within each differing stretch."""
    matcher = difflib.SequenceMatcher(a=[repr(key(x)) for x in old],
                                      b=[repr(key(x)) for x in new], autojunk=False)
    pairs: list[tuple[Any, Any]] = []
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        left, right = list(old[i1:i2]), list(new[j1:j2])
        pairs.extend(zip(left, right, strict=False))
        pairs.extend((x, None) for x in left[len(right):])
        pairs.extend((None, y) for y in right[len(left):])
    return pairs


def _source_key(source: Source) -> tuple:
    return (source.format, source.identity)


def _keys_of(a: tuple, b: tuple) -> list[str]:
    seen: dict[str, None] = {}
    for key, _ in (*a, *b):
        if str(key).lower() not in {k.lower() for k in seen}:
            seen[str(key)] = None
    return list(seen)
