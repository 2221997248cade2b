"""The one result every command reports, and every format renders (`streamlint.report`).

A result is the judged file pairs (each a `diff.Report`: findings, suppressed findings, the
query pairs), the files that could not be read, and what a Spark run added: the comparison
with a real checkpoint (`diff --checkpoint`, its findings are the report's) and Spark's
confirmation (`--confirm`), as plain data. Formatters are pure functions of it; nothing is
spliced into a rendered report afterwards.
"""

from __future__ import annotations

from typing import Any

from streamlint.diff import Report
from streamlint.model.errors import FileError
from streamlint.model.records import factory, record
from streamlint.rulebook.change import worst


@record
class Confirmation:
    """What Spark's run adds to a result, for every format.

    `lines` is the text section; `fields` the keys it adds at the top of the JSON report (of
    the one file for `diff`), `queries` one object a query pair (JSON `queries[i]
    .confirmation`, None for none); `notes` (verdict, message) what the pull-request formats
    annotate; `verdict` the final verdict (the stricter of the static one and Spark's).
    """

    title: str
    lines: tuple[str, ...]
    verdict: str
    fields: dict[str, Any] = factory(dict)  # type: ignore[assignment]
    queries: tuple[dict[str, Any] | None, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()


@record
class Result:
    reports: tuple[Report, ...]
    errors: tuple[FileError, ...] = ()
    # `diff` (one pair of files): its own text and JSON layout; `check`: the list of files.
    single: bool = False
    # diff --checkpoint: the checkpoint the job was compared with (the report's old side).
    checkpoint: str | None = None
    confirmation: Confirmation | None = None

    @property
    def verdict(self) -> str:
        """The verdict the exit code follows: the reports', or Spark's where stricter."""
        static = worst(r.verdict for r in self.reports)
        return worst([static, self.confirmation.verdict if self.confirmation else None])

    @property
    def static_verdict(self) -> str:
        return worst(r.verdict for r in self.reports)
