"""The JSON report: `{"version": 1, "verdict", "queries", "findings"}`, stable for tools."""

from __future__ import annotations

import json
from typing import Any

from streamlint.diff import Report
from streamlint.errors import FileError
from streamlint.model import Loc, Query
from streamlint.model.labels import pair_labels


def _loc(loc: Loc | None) -> dict[str, Any] | None:
    if loc is None:
        return None
    return {"path": loc.path, "line": loc.line, "column": loc.column + 1}


def _query(query: Query | None, label: str) -> dict[str, Any] | None:
    if query is None:
        return None
    return {
        "label": label,
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
    return json.dumps(_data(report), indent=2) + "\n"


def render_all(reports: list[Report], errors: tuple[FileError, ...] = ()) -> str:
    """Git mode: one object per changed job file under `files`, one verdict over all."""
    from streamlint.rules import worst

    files = []
    for report in reports:
        data = _data(report)
        del data["version"]
        files.append({"path": report.new.path, "old_path": report.old.path,
                      "status": report.status,
                      "suppressed": [f.code for f in report.suppressed], **data})
    out = {"version": 1, "verdict": worst([r.verdict for r in reports]), "files": files,
           "errors": [{"path": e.path, "line": e.line, "column": e.column + 1,
                       "message": e.message} for e in errors]}
    return json.dumps(out, indent=2) + "\n"


def _data(report: Report) -> dict[str, Any]:
    return {
        "version": 1,
        "verdict": report.verdict,
        "queries": [{"old": _query(old, label), "new": _query(new, label)}
                    for (old, new), label in zip(report.pairs, pair_labels(report.pairs),
                                                 strict=True)],
        "findings": [
            {
                "code": f.code,
                "name": f.name,
                "verdict": f.verdict,
                "message": f.message,
                "old": _loc(f.old),
                "new": _loc(f.new),
                "help": f.fix if f.verdict != "compatible" else "",
                "next": f.next,
            }
            for f in report.findings
        ],
    }
