"""The oracle that knows what a change intends: rows that differ between the restarted run
and a fresh run of the new code are expected where the static diff found a change whose
effect on the results is by design (a filter, a projection, a join's time bound, a watermark
delay: `by_design` in rules/*.toml). A foreachBatch body is not among them here: the sandbox
collects each batch before the job's function would see it, so its body cannot make the
compared rows differ.

Until the groups a stateful operator held before the restart close, a restart after such a
change writes what neither version alone would; a fresh run of the new code never saw the old
rows. That difference is the change doing what it says, not silent corruption. Where no such
change explains the rows (a same-type aggregate swap, a window changed), they stay
`results-differ`.
"""

from __future__ import annotations

from streamlint.diff import Report
from streamlint.model import Query
from streamlint.model.records import replace
from streamlint.rulebook.book import find_rule
from streamlint.rulebook.matrix import Finding
from streamlint.spark.confirm import Confirmation, QueryConfirmation


def explaining(report: Report, old: Query | None, new: Query | None) -> list[Finding]:
    """The pair's static findings whose change alters the results by design; none when the
    pair also has a change to question that is not by design (an aggregate's input, a key):
    then which change made the rows differ is not known, and the difference stands."""
    labels = {q.label for q in (old, new) if q is not None}
    out = []
    for finding in report.findings:
        if not labels & set(finding.labels):
            continue
        rule = find_rule(finding.code)
        if rule is not None and rule.by_design:
            out.append(finding)
        elif finding.verdict != "compatible":
            return []
    return out


def with_intent(report: Report, confirmation: Confirmation,
                paired: list[QueryConfirmation | None]) -> Confirmation:
    """`confirmation` with each `results-differ` that a by-design change of its pair explains
    turned into `differs-as-intended`, the explaining findings named in its message."""
    changed: dict[str, QueryConfirmation] = {}
    for (old, new), confirmed in zip(report.pairs, paired, strict=True):
        if confirmed is None or confirmed.outcome != "results-differ":
            continue
        found = explaining(report, old, new)
        if found:
            why = "; ".join(f"{f.code} {f.name}: {f.message}" for f in found)
            changed[confirmed.key] = replace(confirmed, outcome="differs-as-intended",
                                             message=f"explained by {why}")
    if not changed:
        return confirmation
    return replace(confirmation, queries=tuple(changed.get(q.key, q)
                                               for q in confirmation.queries))
