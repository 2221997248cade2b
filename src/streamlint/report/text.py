"""Compiler-style diagnostics: severity, code, message, both locations with their lines."""

from __future__ import annotations

from streamlint.diff import Report
from streamlint.model import Loc

SEVERITY = {"incompatible": "error", "review": "warning", "compatible": "note"}
VERDICT_LINE = {
    "compatible": "compatible: the new code can restart from the old checkpoint",
    "review": "review: the new code may restart, but a person should check the findings above",
    "incompatible": "incompatible: the new code cannot safely restart from the old checkpoint",
}


def _source_line(text: str, loc: Loc) -> str:
    lines = text.splitlines()
    if 1 <= loc.line <= len(lines):
        line = lines[loc.line - 1]
        return f"    | {line.rstrip()}\n    | {' ' * loc.column}^"
    return ""


def render(report: Report) -> str:
    out: list[str] = []
    order = {"incompatible": 0, "review": 1, "compatible": 2}
    findings = sorted(report.findings, key=lambda f: order[f.verdict])
    for finding in findings:
        where = finding.new or finding.old
        prefix = f"{where}: " if where else ""
        out.append(f"{prefix}{SEVERITY[finding.verdict]}[{finding.code}] {finding.name}: "
                   f"{finding.message}")
        out.append(f"  query: {finding.query}")
        for label, loc, text in (("old", finding.old, report.old.text),
                                 ("new", finding.new, report.new.text)):
            if loc is not None:
                out.append(f"  {label}: {loc}")
                snippet = _source_line(text, loc)
                if snippet:
                    out.append(snippet)
        if finding.fix and finding.verdict != "compatible":
            out.append(f"  help: {finding.fix}")
        if finding.docs:
            out.append(f"  see: {finding.docs}")
        out.append("")
    if not report.old.queries and not report.new.queries:
        out.append(f"no streaming query found in {report.old.path} or {report.new.path}")
    else:
        counts = {v: sum(1 for f in report.findings if f.verdict == v) for v in order}
        n = len(report.pairs)
        out.append(f"{n} {'query' if n == 1 else 'queries'} compared "
                   f"(Spark {report.spark_version}): {counts['incompatible']} incompatible, "
                   f"{counts['review']} to review, {counts['compatible']} compatible changes")
    out.append(VERDICT_LINE[report.verdict])
    return "\n".join(out) + "\n"
