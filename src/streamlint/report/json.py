"""The JSON report: `{"version": 1, "verdict", "queries", "findings"}`, stable for tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from streamlint.diff import Report
from streamlint.model import Loc, Query, Template, Unknown, code_of
from streamlint.model.errors import FileError
from streamlint.model.labels import pair_labels
from streamlint.rulebook.matrix import worst

if TYPE_CHECKING:
    from streamlint.report.result import Confirmation


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
    """A value as JSON: known ones as they are, the others as the code writes them."""
    if isinstance(value, Unknown | Template):
        return code_of(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def render(report: Report, confirmation: Confirmation | None = None) -> str:
    """`diff`'s report; with what a Spark run added (`--confirm`, `diff --checkpoint
    --confirm`): each query's confirmation, the keys it adds, the final verdict."""
    return json.dumps(report_data(report, confirmation), indent=2) + "\n"


def report_data(report: Report, confirmation: Confirmation | None = None) -> dict[str, Any]:
    """What `render` writes, as data (`check --confirm` nests one per file)."""
    data = _data(report)
    if confirmation is not None:
        for entry, confirmed in zip(data["queries"], confirmation.queries, strict=False):
            entry["confirmation"] = confirmed
        data["verdict"] = confirmation.verdict
        data.update(confirmation.fields)
    return data


def render_all(reports: list[Report], errors: tuple[FileError, ...] = (),
               confirmation: Confirmation | None = None) -> str:
    """Git mode: one object per changed job file under `files`, one verdict over all; with
    `check --confirm`, each file's Spark confirmation under `confirmations`."""
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
    if confirmation is not None:
        out["verdict"] = worst([out["verdict"], confirmation.verdict])
        out.update(confirmation.fields)
    return json.dumps(out, indent=2) + "\n"


def _data(report: Report) -> dict[str, Any]:
    return {
        "version": 1,
        "verdict": report.verdict,
        # The profile the rules judged for, and where it came from (`streamlint.workflow.target`).
        "spark": {"version": report.spark_version,
                  **({"databricks": report.databricks} if report.databricks else {}),
                  "source": report.spark_source,
                  **({"base": {"version": report.base_spark_version,
                               "source": report.base_spark_source}}
                     if report.base_spark_version else {})},
        "queries": [{"old": _query(old, label), "new": _query(new, label)}
                    for (old, new), label in zip(report.pairs, pair_labels(report.pairs),
                                                 strict=True)],
        # A pipeline's materialized views (no checkpoint): read, and nothing to restart.
        "materialized_views": {"old": list(report.old.batch_datasets),
                               "new": list(report.new.batch_datasets)},
        "findings": [
            {
                "code": f.code,
                "name": f.name,
                "verdict": f.verdict,
                "message": f.message,
                "old": _loc(f.old),
                "new": _loc(f.new),
                "related": [_loc(loc) for loc in f.related],
                "help": f.fix if f.verdict != "compatible" else "",
                "next": f.next,
                # griffe's breakage: what kind of change, from what, to what; the rule's fix
                # and docs whatever the verdict ("help" is the fix where one is needed).
                "kind": f.kind,
                "old_value": f.old_value,
                "new_value": f.new_value,
                "query": f.query,
                "fix": f.fix,
                "docs": f.docs,
            }
            for f in report.findings
        ],
    }
