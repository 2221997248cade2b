"""Durations as Spark reads them: '1 hour' and '60 minutes' are one CalendarInterval.

Shared by the front ends (a window or session gap becomes an `Interval`) and the diff (a
watermark delay or a trigger interval is a user string, compared by its length).
"""

from __future__ import annotations

import re

_PART_RE = re.compile(
    r"\s*(-?\d+(?:\.\d+)?)\s*(microseconds?|us|milliseconds?|ms|seconds?|secs?|s|minutes?|mins?"
    r"|m|hours?|h|days?|d|weeks?|w)\s*", re.IGNORECASE)
_MICROS = {"mi": 1, "us": 1, "ms": 1_000, "mil": 1_000, "s": 1_000_000, "m": 60_000_000,
           "h": 3_600_000_000, "d": 86_400_000_000, "w": 604_800_000_000}


def _unit_micros(unit: str) -> int:
    unit = unit.lower()
    if unit in ("us", "ms"):
        return _MICROS[unit]
    if unit.startswith("micro"):
        return _MICROS["mi"]
    if unit.startswith("milli"):
        return _MICROS["mil"]
    return _MICROS[unit[0]]


def duration_micros(text: object) -> int | None:
    """`'10 minutes'`, `'interval 1 hour 30 minutes'`, `'500 milliseconds'` in microseconds;
    None for anything else (a month has no fixed length, a typo is not a duration)."""
    if not isinstance(text, str):
        return None
    body = text.strip()
    if body.lower().startswith("interval"):
        body = body[len("interval"):]
    if not body.strip():
        return None
    total, position = 0, 0
    while position < len(body):
        match = _PART_RE.match(body, position)
        if match is None or match.end() == position:
            return None
        total += round(float(match.group(1)) * _unit_micros(match.group(2)))
        position = match.end()
    return total


def same_duration(a: object, b: object) -> bool:
    """Two user values that are the same length of time, or the same value otherwise."""
    if a == b:
        return True
    x, y = duration_micros(a), duration_micros(b)
    return x is not None and x == y


def normalized(value: object) -> object:
    """A value with a duration spelled one way (microseconds), for equality; others as is."""
    if isinstance(value, tuple):
        return tuple(normalized(v) for v in value)
    micros = duration_micros(value)
    return ("duration", micros) if micros is not None else value
