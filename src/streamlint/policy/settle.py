"""A report as the team configured it: what `diff`, `check` and the cross-file pass all do
to a report before it is shown (suppressions and acceptances, selected codes, severities,
the next step for what stays incompatible)."""

from __future__ import annotations

from streamlint.diff import Report
from streamlint.model.records import replace
from streamlint.policy.accept import Acceptance, apply
from streamlint.policy.at_change import at_change
from streamlint.policy.config import Config
from streamlint.policy.suppress import apply_suppressions
from streamlint.report.remedy import with_remedies
from streamlint.rulebook.matrix import worst


def settle(report: Report, config: Config, accepted: tuple[Acceptance, ...] = ()) -> Report:
    """The report as the team configured it: suppressions and acceptances, codes selected,
    severities, and the next step for what stays incompatible."""
    findings = at_change(report.findings, report.old.text, report.old.path, report.new.text,
                         report.new.path, report.old.sources, report.new.sources,
                         report.old.counterparts, report.new.counterparts)
    suppressed: tuple = ()
    if report.new.text or report.new.commented_modules:
        # Before the configuration, so that a comment for a code the team ignores is not
        # "unused", and so that SL01/SL02 themselves can be ignored or re-graded.
        findings, suppressed = apply_suppressions(findings, report.new.text, report.new.path,
                                                  report.old.text or None,
                                                  report.new.commented_modules,
                                                  report.old.commented_modules)
    if accepted:
        findings, by_file = apply(findings, report, accepted)
        suppressed = (*suppressed, *by_file)
    findings = tuple(replace(f, verdict=config.verdict_for(f.code, f.verdict))
                     for f in findings if config.wants_code(f.code))
    findings = with_remedies(findings, report)
    return replace(report, findings=findings, suppressed=tuple(suppressed),
                   verdict=worst([f.verdict for f in findings]))
