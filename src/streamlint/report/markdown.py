"""A Markdown summary to post as a pull-request comment (or to $GITHUB_STEP_SUMMARY)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamlint.diff import Report
from streamlint.model.errors import FileError
from streamlint.report.shared import gone_from, judged_for, no_query, plural, repo_path, where
from streamlint.rulebook.matrix import Finding, worst

if TYPE_CHECKING:
    from streamlint.report.result import Confirmation

ICON = {"incompatible": "❌", "review": "⚠️", "compatible": "✅"}
HEADLINE = {
    "incompatible": "the changed jobs cannot safely restart from their checkpoints",
    "review": "the changed jobs may restart from their checkpoints; please review",
    "compatible": "the changed jobs can restart from their checkpoints",
}
STATUS = {"added": "new job", "deleted": "deleted job", "renamed": "renamed",
          "helper-changed": "unchanged, but a module it imports changed",
          "config-changed": "unchanged, but a configuration file it reads changed"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _file_line(report: Report) -> str | None:
    """A file moved, or a pipeline read with materialized views only: one line above the
    findings."""
    if report.status in STATUS:
        line = f"- `{report.new.path}`: {STATUS[report.status]}"
        if report.status == "renamed":
            line += f" (from `{report.old.path}`)"
        return line
    if (nothing := no_query(report)) is not None and report.new.batch_datasets:
        return f"- {_cell(nothing)}"
    return None


def _fix_block(report: Report, finding: Finding, root: str | None) -> list[str]:
    """One finding's fix: which finding (code, place, query), what to do, then its next
    command and its patch, the prose outside the diff block."""
    path, line, _ = where(finding, report, root)
    # Where the query uses the change it points at (streamlint/policy/at_change.py).
    used = "".join(f", used at `{repo_path(loc.path, root)}:{loc.line}`"
                   for loc in finding.related)
    at = f"at `{path}:{line}`"
    if gone := gone_from(finding, root):
        at = f"({gone})"
    out = [f"**{ICON[finding.verdict]} {finding.code} {finding.name}** {at} "
           f"(query `{_cell(finding.query)}`{used}): {_cell(finding.fix)}", ""]
    remedy = finding.remedy
    if remedy is not None:
        out += [f"Next: `{remedy.command}`{remedy.note}", ""]
        if remedy.heading:
            out += [remedy.heading[0].upper() + remedy.heading[1:], ""]
        if remedy.patch:
            out += ["```diff", *remedy.patch, "```", ""]
    return out


def render(reports: list[Report], errors: tuple[FileError, ...] = (),
           root: str | None = None, confirmation: Confirmation | None = None) -> str:
    verdict = worst([r.verdict for r in reports])
    if confirmation is not None:  # Spark's run may be stricter than the static verdict
        verdict = confirmation.verdict
    counts = {v: sum(1 for r in reports for f in r.findings if f.verdict == v) for v in ICON}
    files = {v: sum(1 for r in reports if r.verdict == v) for v in ICON}
    # A file that could not be read fails the check (exit 2): never a green headline.
    title = (f"### ⛔ streamlint: {plural(len(errors), 'file')} could not be read" if errors
             else f"### {ICON[verdict]} streamlint: {verdict}")
    headline = f"Of the files read, {HEADLINE[verdict]}" if errors else HEADLINE[verdict]
    out = [title, "",
           f"{headline[0].upper()}{headline[1:]}. {plural(len(reports), 'job file')} "
           f"compared: {files['incompatible']} incompatible, {files['review']} to review, "
           f"{files['compatible']} compatible; {plural(sum(counts.values()), 'finding')}.", ""]
    if reports:
        out += [f"Judged for {_cell('; '.join(judged_for(reports)))}.", ""]
    listed = [line for line in map(_file_line, reports) if line]
    out += [*listed, ""] if listed else []
    rows = [(r, f) for r in reports for f in r.findings]
    order = list(ICON)
    rows.sort(key=lambda rf: order.index(rf[1].verdict))
    if rows:
        out += ["| | Where | Rule | Finding |", "|---|---|---|---|"]
        for report, finding in rows:
            path, line, _ = where(finding, report, root)
            at = f"`{path}:{line}`"
            if gone := gone_from(finding, root):
                at = gone[0].upper() + gone[1:]
            rule = (f"[{finding.code}]({finding.docs})" if finding.docs else finding.code)
            out.append(f"| {ICON[finding.verdict]} | {at} | {rule} "
                       f"{finding.name} | {_cell(finding.message)} |")
        out.append("")
        fixes = [(r, f) for r, f in rows if f.fix and f.verdict != "compatible"]
        if fixes:
            out += ["<details><summary>How to fix</summary>", ""]
            for report, finding in fixes:
                out += _fix_block(report, finding, root)
            out += ["</details>", ""]
    suppressed = sum(len(r.suppressed) for r in reports)
    if suppressed:
        out += [f"{plural(suppressed, 'finding')} accepted by `# streamlint: ignore[...]` "
                "comments or .streamlint-accept.toml.", ""]
    for error in errors:
        out.append(f"- could not read `{error.path}:{error.line}`: {_cell(error.message)}")
    if confirmation is not None:
        out += [f"**{confirmation.title}**", ""]
        out += [f"- {ICON[v]} {_cell(note)}" for v, note in confirmation.notes]
        out += ["", "<details><summary>What Spark did</summary>", "", "```text",
                *confirmation.lines, "```", "", "</details>", ""]
    return "\n".join(out).rstrip("\n") + "\n"
