"""SARIF 2.1.0 for code-scanning dashboards (GitHub's `upload-sarif`, GitLab, IDEs).

One run, the rules that fired (with their docs link as helpUri), one result per finding at
its location in the new file, relative to the repository root (`%SRCROOT%`); findings silenced
by `# streamlint: ignore[...]` are results with an in-source suppression.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from streamlint import __version__
from streamlint.diff import Report
from streamlint.model import Loc
from streamlint.model.errors import FileError
from streamlint.report.shared import LEVEL, repo_path, where
from streamlint.rulebook.book import all_rules

if TYPE_CHECKING:
    from streamlint.report.result import Confirmation

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
HOME = "https://github.com/streamlint/streamlint"


def _rule(finding: Any, known: dict[str, Any]) -> dict[str, Any]:
    rule = known.get(finding.code)
    data: dict[str, Any] = {
        "id": finding.code,
        "name": finding.name,
        "shortDescription": {"text": rule.message if rule else finding.name},
        "defaultConfiguration": {"level": LEVEL[rule.verdict if rule else finding.verdict]},
    }
    if rule is not None and rule.why:
        data["fullDescription"] = {"text": rule.why}
    fix = rule.fix if rule is not None else finding.fix
    if fix:
        data["help"] = {"text": fix}
    if finding.docs:
        data["helpUri"] = finding.docs
    return data


def _related(related: tuple[Loc, ...], root: str | None) -> list[dict[str, Any]]:
    """Where the query uses the change a finding points at (streamlint/policy/at_change.py)."""
    return [{"id": n, "message": {"text": "used here"}, "physicalLocation": {
        "artifactLocation": {"uri": _uri(repo_path(loc.path, root)), "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": loc.line, "startColumn": loc.column + 1}}}
        for n, loc in enumerate(related)]


def _uri(path: str) -> str:
    """A repository path as the URI reference SARIF requires: `my job.py` is `my%20job.py`
    (code scanning matches files by it)."""
    from urllib.parse import quote

    return quote(path, safe="/")


def _targets(reports: list[Report]) -> list[dict[str, str]]:
    """The profiles the rules judged for, and where each came from
    (`streamlint.workflow.target`)."""
    return [{"version": version, **({"databricks": databricks} if databricks else {}),
             "source": source} for version, databricks, source in
            dict.fromkeys((r.spark_version, r.databricks, r.spark_source) for r in reports)]


def render(reports: list[Report], errors: tuple[FileError, ...] = (),
           root: str | None = None, confirmation: Confirmation | None = None) -> str:
    known = {rule.code: rule for rule in all_rules()}
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    for report in reports:
        silenced = {id(f) for f in report.suppressed}
        for finding in (*report.findings, *report.suppressed):
            if finding.code not in index:
                index[finding.code] = len(rules)
                rules.append(_rule(finding, known))
            path, line, column = where(finding, report, root)
            message = finding.message
            if finding.old is not None:
                message += f" (before: {finding.old})"
            result: dict[str, Any] = {
                "ruleId": finding.code,
                "ruleIndex": index[finding.code],
                "level": LEVEL[finding.verdict],
                "message": {"text": message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": _uri(path), "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": line, "startColumn": column},
                }}],
                "properties": {"verdict": finding.verdict, "query": finding.query},
            }
            if finding.related:  # where the query uses what changed
                result["relatedLocations"] = _related(finding.related, root)
            if id(finding) in silenced:  # shown as dismissed by code-scanning dashboards
                result["suppressions"] = [{"kind": "inSource"}]
            results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "streamlint", "version": __version__,
                            "informationUri": HOME, "rules": rules}},
        "results": results,
        "columnKind": "unicodeCodePoints",
        "properties": {"spark": _targets(reports)},
    }
    notifications = [
        {"level": "error", "message": {"text": error.message},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": _uri(error.path), "uriBaseId": "%SRCROOT%"},
             "region": {"startLine": error.line, "startColumn": error.column + 1},
         }}]}
        for error in errors]
    if confirmation is not None:
        # Spark's outcome is about the run, not a line: notifications, and the data as the
        # run's properties (the final verdict, the stricter of the static one and Spark's).
        notifications += [{"level": LEVEL[verdict], "message": {"text": note}}
                          for verdict, note in confirmation.notes]
        run["properties"] |= {"verdict": confirmation.verdict, "confirmation": {
            "title": confirmation.title, "report": list(confirmation.lines),
            **confirmation.fields}}
    if notifications:
        run["invocations"] = [{"executionSuccessful": not errors,
                               "toolExecutionNotifications": notifications}]
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"
