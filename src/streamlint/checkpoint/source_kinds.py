"""Which source wrote an offset, told from the offset's own JSON shape."""

from __future__ import annotations

import json


def offset_kind(offset: str) -> str:
    """kafka, file, delta, number (rate and other LongOffset sources), json, none, or
    unreadable (not JSON: no source of Spark's writes that)."""
    text = offset.strip()
    if text == "-":
        return "none"
    if text.lstrip("-").isdigit():
        return "number"
    try:
        value = json.loads(text)
    except ValueError:
        return "unreadable"
    if isinstance(value, dict):
        if set(value) == {"logOffset"}:
            return "file"
        if "reservoirId" in value and "reservoirVersion" in value:
            return "delta"
        if value and all(_is_partition_map(v) for v in value.values()):
            return "kafka"
    return "json"


def _is_partition_map(value: object) -> bool:
    """Kafka's `JsonUtils.partitionOffsets`: partition number (a string key) -> offset."""
    return (isinstance(value, dict) and bool(value)
            and all(k.lstrip("-").isdigit() and isinstance(v, int) and not isinstance(v, bool)
                    for k, v in value.items()))


def kafka_offsets(offset: str) -> dict[str, dict[str, int]]:
    """The parsed Kafka offsets (compare parsed, never text: Spark writes from hash maps)."""
    value = json.loads(offset)
    return {topic: {str(p): int(o) for p, o in parts.items()} for topic, parts in value.items()}
