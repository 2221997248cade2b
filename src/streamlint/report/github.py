"""GitHub Actions workflow commands: an annotation on the new file's line per finding.

`::error` for incompatible, `::warning` for review, `::notice` for compatible changes worth
knowing; the rule code and name are the annotation's title.
https://docs.github.com/actions/reference/workflow-commands-for-github-actions
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamlint.diff import Report
from streamlint.model.errors import FileError
from streamlint.report.shared import LEVEL, gone_from, judged_for, plural, see, where
from streamlint.rulebook.matrix import worst

if TYPE_CHECKING:
    from streamlint.report.result import Confirmation

COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(reports: list[Report], errors: tuple[FileError, ...] = (),
           root: str | None = None, confirmation: Confirmation | None = None) -> str:
    out: list[str] = []
    for report in reports:
        for finding in report.findings:
            path, line, column = where(finding, report, root)
            message = finding.message + (f" — {finding.fix}" if finding.fix
                                         and finding.verdict != "compatible" else "")
            if gone := gone_from(finding, root):
                message += f" ({gone})"
            if finding.next:
                message += "\n" + finding.next
            message += f"\n(see {see(finding)})" if finding.next else f" (see {see(finding)})"
            out.append(f"::{COMMAND[LEVEL[finding.verdict]]} file={_property(path)},"
                       f"line={line},col={column},"
                       f"title={_property(f'{finding.code} {finding.name}')}::{_data(message)}")
    for error in errors:
        out.append(f"::error file={_property(error.path)},line={error.line},"
                   f"col={error.column + 1},title=streamlint could not read this file::"
                   f"{_data(error.message)}")
    for verdict, note in confirmation.notes if confirmation else ():
        out.append(f"::{COMMAND[LEVEL[verdict]]} title={_property(confirmation.title)}::"
                   f"{_data(note)}")
    verdict = worst([r.verdict for r in reports])
    if confirmation is not None:
        verdict = confirmation.verdict
    if errors:  # the check failed (exit 2): no "compatible" in the log
        verdict = f"no verdict, {plural(len(errors), 'file')} could not be read"
    out.append(f"streamlint: {verdict} ({plural(sum(len(r.findings) for r in reports), 'finding')}"
               f" in {plural(len(reports), 'job file')})"
               + (f"; judged for {'; '.join(judged_for(reports))}" if reports else ""))
    return "\n".join(out) + "\n"
