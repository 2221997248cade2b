"""Rows as the sandbox compares them: canonical, independent of the run's own directories and
clock, and names for the directories a run's sources and checkpoints live in."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any


def slug(text: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:40]
    return f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def to_json(row: Mapping[str, Any]) -> str:
    import json

    return json.dumps(row)


def canonical_row(row: Any) -> tuple:
    return tuple(sorted((k, _canonical(v)) for k, v in row.asDict(recursive=True).items()))


def _canonical(value: Any) -> str:
    import datetime as dt

    if isinstance(value, dt.datetime):
        # Synthetic event times lie in 2024; a time near now came from the clock
        # (current_timestamp(), ingestion stamps) and differs between any two runs.
        now = dt.datetime.now(value.tzinfo) if value.tzinfo else dt.datetime.now()
        if abs((now - value).total_seconds()) < 2 * 86400:
            return "<wall clock>"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_canonical(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_canonical(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(round(value, 9))
    if isinstance(value, str):
        # input_file_name() and the like name the run's own temporary directory, which
        # differs between the restarted and the fresh run; the rest of the path is the data.
        return repr(_SANDBOX_DIR.sub("<sandbox>/", value))
    return repr(value)


_SANDBOX_DIR = re.compile(r"(?:file:)?/[^\s'\"]*?/streamlint-confirm-[^/]+/[^/]+/")
