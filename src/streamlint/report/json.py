"""The JSON report: `{"version": 1, "verdict", "queries", "findings"}`, stable for tools."""

from __future__ import annotations

import json
from typing import Any

from streamlint.diff import Report
from streamlint.model import Loc, Query


def _loc(loc: Loc | None) -> dict[str, Any] | None:
    if loc is None:
        return None
    return {"path": loc.path, "line": loc.line, "column": loc.column + 1}


def _query(query: Query | None) -> dict[str, Any] | None:
    if query is None:
        return None
    return {
        "label": query.label,
        "checkpoint": _plain(query.sink.checkpoint),
        "query_name": _plain(query.sink.query_name),
        "sink": _plain(query.sink.format),
        "sources": [_plain(s.format) for s in query.sources],
        "stateful_operators": [op.kind for op in query.stateful],
        "location": _loc(query.sink.loc),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def render(report: Report) -> str:
    data = {
        "version": 1,
        "verdict": report.verdict,
        "queries": [{"old": _query(old), "new": _query(new)} for old, new in report.pairs],
        "findings": [
            {
                "code": f.code,
                "name": f.name,
                "verdict": f.verdict,
                "message": f.message,
                "old": _loc(f.old),
                "new": _loc(f.new),
            }
            for f in report.findings
        ],
    }
    return json.dumps(data, indent=2) + "\n"
