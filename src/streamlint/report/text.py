"""Compiler-style diagnostics: severity, code, message, both locations with their lines."""

from __future__ import annotations

from typing import Any

from streamlint.diff import Report
from streamlint.extract.ipynb_lines import describe
from streamlint.model import JobFile, Loc
from streamlint.model.errors import FileError
from streamlint.model.secrets import mask_line
from streamlint.report.shared import (
    judged_for,
    no_query,
    outside_queries,
    plural,
    query_verdicts,
    see,
)
from streamlint.rulebook.change import VERDICTS, worst

SEVERITY = {"incompatible": "error", "review": "warning", "compatible": "note"}
VERDICT_LINE = {
    "compatible": "compatible: the new code can restart from the old checkpoint",
    "review": "review: the new code may restart, but a person should check the findings above",
    "incompatible": "incompatible: the new code cannot safely restart from the old checkpoint",
}
NO_QUERY_LINE = "compatible: no streaming query, so no checkpoint to restart from"


def _source_line(text: str, loc: Loc) -> str:
    if loc.path.lower().endswith(".ipynb"):
        # The JSON line holds the cell's line as a string: show the code, and where it is.

        cell = describe(text, loc.line, loc.column)
        if cell is not None:
            number, index, code, column = cell
            return (f"    | cell {number}, line {index}:\n    | {mask_line(code.rstrip())}\n"
                    f"    | {' ' * column}^")
    lines = text.splitlines()
    if 1 <= loc.line <= len(lines):
        line = lines[loc.line - 1]
        return f"    | {mask_line(line.rstrip())}\n    | {' ' * loc.column}^"
    return ""


def _text_at(report: Report, loc: Loc, job: JobFile) -> str | None:
    """The text a location points into: the job's, another file's for a query that moved
    from there, none for a module the job imports (its text is not at hand)."""
    if loc.path == job.path:
        return job.text
    for other in report.others:
        if other.path == loc.path:
            return other.text
    return None


ORDER = {verdict: n for n, verdict in enumerate(reversed(VERDICTS))}  # most severe first
STATUS = {"added": "new job", "deleted": "deleted job", "renamed": "renamed",
          "modified": "changed", "helper-changed": "unchanged, but a module it imports changed",
          "config-changed": "unchanged, but a configuration file it reads changed"}


def changed_helpers(report: Report) -> list[str]:
    """The repository's modules the job imports whose text differs between the versions."""
    return sorted({path for path, _ in set(report.old.modules) ^ set(report.new.modules)})


def _findings(report: Report) -> list[str]:
    out: list[str] = []
    for finding in sorted(report.findings, key=lambda f: ORDER[f.verdict]):
        where = finding.new or finding.old
        prefix = f"{where}: " if where else ""
        out.append(f"{prefix}{SEVERITY[finding.verdict]}[{finding.code}] {finding.name}: "
                   f"{finding.message}")
        out.append(f"  query: {finding.query}")
        for label, loc, job in (("old", finding.old, report.old), ("new", finding.new,
                                                                     report.new)):
            if loc is not None:
                out.append(f"  {label}: {loc}")
                text = _text_at(report, loc, job)
                snippet = _source_line(text, loc) if text is not None else ""
                if snippet:
                    out.append(snippet)
        for loc in finding.related:
            out.append(f"  used at: {loc}")
        if finding.fix and finding.verdict != "compatible":
            out.append(f"  help: {finding.fix}")
        for line in getattr(finding, "next", "").splitlines():
            out.append(f"  {line}" if not line.startswith(("-", "+", " ")) else f"    {line}")
        out.append(f"  see: {see(finding)}")
        out.append("")
    return out


def _tally(verdicts: list[str]) -> str:
    """How many of the things compared are incompatible, to review, compatible."""
    n = {v: verdicts.count(v) for v in ORDER}
    return (f"{n['incompatible']} incompatible, {n['review']} to review, "
            f"{n['compatible']} compatible")


def _finding_tally(findings: object) -> str:
    listed = list(findings)  # type: ignore[call-overload]
    if not listed:
        return "no findings"
    n = {v: sum(1 for f in listed if f.verdict == v) for v in ORDER}
    parts = [f"{n[v]} {word}" for v, word in (("incompatible", "incompatible"),
                                                 ("review", "to review"),
                                                 ("compatible", "compatible")) if n[v]]
    return f"{plural(len(listed), 'finding')} ({', '.join(parts)})"


def _outside(outside: list[Any], findings: tuple[Any, ...]) -> str:
    """The findings no compared query counts (so the counts agree with the verdict)."""
    if not outside:
        return ""
    where = "on code outside the compared queries"
    if len(outside) == len(findings):
        return f", all {where}" if len(findings) > 1 else f", {where}"
    inner = _finding_tally(outside).split(" (", 1)[1].rstrip(")")
    return f", {len(outside)} of them ({inner}) {where}"


def _runtime(report: Report) -> str:
    return f"Databricks Runtime {report.databricks}, " if report.databricks else ""


def render(report: Report) -> str:
    out = _findings(report)
    unseen = report.old.unseen or report.new.unseen
    nothing = no_query(report)
    if unseen and report.old.text == report.new.text and report.old.modules == report.new.modules:
        out.append(f"{report.old.path} and {report.new.path} are the same code: nothing changed "
                   "(streamlint could not read all of their streaming code)")
    elif nothing is not None:
        out.append(nothing)
    elif not report.old.queries and not report.new.queries:
        out.append(f"no streaming query streamlint could read in {report.old.path} or "
                   f"{report.new.path}")
    else:
        verdicts = query_verdicts(report)
        outside = outside_queries(report)
        out.append(f"{plural(len(report.pairs), 'query')} compared "
                   f"({_runtime(report)}Spark {report.spark_version}): {_tally(verdicts)}; "
                   f"{_finding_tally(report.findings)}{_outside(outside, report.findings)}")
        out.append(f"judged for {judged_for([report])[0]}")
    if report.suppressed:
        out.append(f"{plural(len(report.suppressed), 'finding')} accepted "
                   "(`# streamlint: ignore` comments or .streamlint-accept.toml)")
    out.append(NO_QUERY_LINE if nothing is not None and report.verdict == "compatible"
               else VERDICT_LINE[report.verdict])
    return "\n".join(out) + "\n"


def render_all(reports: list[Report], errors: tuple[FileError, ...] = ()) -> str:
    """Several files (git mode): each file's findings, then one summary and one verdict.
    Unreadable files are only counted here: the command prints them on stderr."""
    out: list[str] = []
    for report in reports:
        if report.status in ("added", "deleted", "renamed"):
            queries = report.new.queries if report.status != "deleted" else report.old.queries
            what = STATUS[report.status]
            if report.status == "renamed":
                what += f" from {report.old.path}"
            out.append(f"{report.new.path}: {what} ({len(queries)} streaming "
                       f"{'query' if len(queries) == 1 else 'queries'})")
            out.append("")
        elif report.status in ("helper-changed", "config-changed"):
            out.append(f"{report.new.path}: {STATUS[report.status]} "
                       f"({', '.join(changed_helpers(report)) or 'no longer read'}); "
                       "judged again with each version's files")
            out.append("")
        out.extend(_findings(report))
    suppressed = sum(len(r.suppressed) for r in reports)
    out.append(f"{plural(len(reports), 'job file')} compared: "
               f"{_tally([r.verdict for r in reports])}; "
               f"{_finding_tally([f for r in reports for f in r.findings])}"
               + (f", {suppressed} accepted" if suppressed else "")
               + (f"; {plural(len(errors), 'file')} could not be read" if errors else ""))
    if reports:
        out.append(f"judged for {'; '.join(judged_for(reports))}")
    verdict = worst(r.verdict for r in reports)
    if errors:
        # "compatible" over the files read must not read as a pass: the check failed (exit 2).
        n = len(errors)
        out.append(f"no verdict: {n} {'file' if n == 1 else 'files'} could not be read "
                   f"(the files read are {verdict})")
    else:
        out.append(VERDICT_LINE[verdict])
    return "\n".join(out) + "\n"
