"""The restart-compatibility matrix, loaded from `rules/*.toml`, and how a change meets it.

A rule names the change kind it judges, optional facts it needs (`when`), the Spark versions
and Databricks runtimes it holds for, and its verdict. The first matching rule wins, most
specific first.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from streamlint.model import Loc, is_known, show
from streamlint.model.records import record
from streamlint.model.secrets import mask_text
from streamlint.rulebook.book import load_rules, own_rules, rule_data
from streamlint.rulebook.change import DEFAULT_SPARK_VERSION as DEFAULT_SPARK_VERSION
from streamlint.rulebook.change import Change, Code
from streamlint.rulebook.change import worst as worst  # the rules' users take it from here too
from streamlint.rulebook.rule import Rule, Runtime


@record
class Remedy:
    """What to do next about an incompatible finding (`streamlint.report.remedy`): a command to run,
    then, in words, the deliberate way out, and that way out as a patch to the job."""

    command: str
    note: str = ""  # said after the command on its line: what to put in for a placeholder
    heading: str = ""  # what the patch does, in words
    patch: tuple[str, ...] = ()  # diff lines ("-" old, "+" new, "     # " a comment)

    @property
    def text(self) -> str:
        """As the text report and JSON's "next" show it."""
        return "\n".join([f"next: {self.command}{self.note}",
                          *([self.heading] if self.heading else []), *self.patch])


@record
class Finding:
    """A judged change: what the reports print."""

    code: str
    name: str
    verdict: str
    message: str
    fix: str
    docs: str
    query: str
    old: Loc | None
    new: Loc | None
    # For an incompatible finding: the command to run next, then the deliberate reset as a
    # patch (`streamlint.report.remedy`); None otherwise.
    remedy: Remedy | None = None
    # What changed, as griffe's breakages say it: the change kind ("agg.window"; for the
    # codes streamlint raises itself, "family.name"), the old and the new value as shown.
    kind: str = ""
    old_value: str | None = None
    new_value: str | None = None
    # A finding shared by several queries (one session setting): each one's label; `query`
    # names them all for people. Empty: the one query `query` names.
    queries: tuple[str, ...] = ()
    # Where the query uses what changed, when the finding points at the change itself
    # (streamlint/policy/at_change.py): a code host annotates only the lines a pull request touched.
    related: tuple[Loc, ...] = ()
    # The calls each version's place was made through (an operator's, `Query.made_through`;
    # else those its query was started through, `Sink.called_from`): of several calls of the
    # function holding the finding's line, the ones that made this query.
    old_calls: tuple[Loc, ...] = ()
    new_calls: tuple[Loc, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        """The label of each query the finding is about (a label may itself hold a comma)."""
        return self.queries or (self.query,)

    @property
    def next(self) -> str:
        """The remedy as text ("" without one)."""
        return self.remedy.text if self.remedy is not None else ""


def judged_without_values(change: Change) -> bool:
    """Whether every rule that may judge `change` (on any runtime) holds whatever its
    values are, so that a value only known at run time cannot change the verdict."""
    rules = [r for r in load_rules() if change.kind in r.change
             and all(change.facts.get(key) in values for key, values in r.when)]
    return bool(rules) and all(r.value_free for r in rules)


_index: tuple[tuple[Rule, ...], dict[str, tuple[Rule, ...]]] | None = None


def _rules_of(kind: str) -> tuple[Rule, ...]:
    """The rules that judge a change kind, in the rulebook's order (most specific first);
    indexed once per loaded rulebook."""
    global _index
    rules = load_rules()
    if _index is None or _index[0] is not rules:
        by_kind: dict[str, list[Rule]] = {}
        for rule in rules:
            for judged in rule.change:
                by_kind.setdefault(judged, []).append(rule)
        _index = (rules, {k: tuple(v) for k, v in by_kind.items()})
    return _index[1].get(kind, ())


def rule_for(change: Change, runtime: Runtime) -> Rule | None:
    return next((rule for rule in _rules_of(change.kind) if rule.applies(change, runtime)),
                None)


def verdict_of(change: Change, runtime: Runtime) -> str:
    """The verdict `judge` gives, without writing its finding."""
    rule = rule_for(change, runtime)
    return rule.verdict if rule is not None else next(
        r.verdict for r in own_rules() if r.code == "SL000")


def judge(change: Change, runtime: Runtime) -> Finding:
    rule = rule_for(change, runtime)
    if rule is None:  # every change kind has a rule (tested); this is the safe fallback
        return own_finding("SL000", change.query, change.old_loc, change.new_loc,
                           subject=change.subject, old=show(change.old), new=show(change.new))
    old, new = _render(change.old), _render(change.new)
    if old == new and change.old != change.new and not (is_known(change.old)
                                                        and is_known(change.new)):
        # The same code on both sides, reading values that differ (an item of a list that
        # changed): said, so that the message never reads "from X to X".
        new += " (written the same, but what it reads changed)"
    message = _natural(rule.message, change).format(
        subject=change.subject, old=old, new=new, query=change.query, **change.facts,
    )
    if "branch" in change.facts:  # found on the branch of a run-time fork not read
        message += f" (in the other branch of the run-time condition `{change.facts['branch']}`)"
    # Code streamlint shows as written (an unfollowed call's arguments) may hold a credential
    # as a literal (`password="..."`): the message and the values are masked like source lines.
    message = mask_text(_NOTHING.sub("", message))
    fix, remedy = rule.fix, None
    if "pipeline" in change.facts:  # a pipeline's flow: the remedy is a full refresh
        fix = pipeline_fix(fix, rule.verdict, rule.family, change.facts)
        remedy = pipeline_remedy(change.kind, rule.verdict, change.facts, rule.family)
    # A source option's finding cites the page its class was read from (rules/options.toml).
    docs = change.facts.get("option_docs") or rule.docs
    return Finding(rule.code, rule.name, rule.verdict, message, fix, docs,
                   change.query, change.old_loc, change.new_loc, remedy, change.kind,
                   _value(change.old), _value(change.new), old_calls=change.old_calls,
                   new_calls=change.new_calls)


def _value(value: Any) -> str | None:
    return None if value is None else mask_text(_render(value))


# "changed from nothing to X" reads as "added: X", "changed from X to nothing" as "removed".
_FROM_TO = re.compile(r" changed from \(?\{old\}\)? to \(?\{new\}\)?")
_NOTHING = re.compile(r"removed: nothing; |; added: nothing|old: nothing; |; new: nothing")


def _natural(template: str, change: Change) -> str:
    if change.old is None and change.new is not None:
        return _FROM_TO.sub(" added: {new}", template, count=1)
    if change.new is None and change.old is not None:
        return _FROM_TO.sub(" removed (it was {old})", template, count=1)
    delta = _list_delta(change.old, change.new)
    if delta is not None:
        return _FROM_TO.sub(" changed: " + delta.replace("{", "{{").replace("}", "}}"),
                            template, count=1)
    return template


# A list longer than this is named by what was added and removed, not printed twice in full.
_LONG_LIST = 6


def _list_delta(old: Any, new: Any) -> str | None:
    """`added: x, y; removed: z` for two long lists (columns, keys); None for short ones."""
    if not (isinstance(old, tuple) and isinstance(new, tuple)):
        return None
    if max(len(old), len(new)) <= _LONG_LIST:
        return None
    before, after = [_render(v) for v in old], [_render(v) for v in new]
    added = [v for v in after if v not in before]
    removed = [v for v in before if v not in after]
    parts = []
    if added:
        parts.append(f"added {', '.join(added)}")
    if removed:
        parts.append(f"removed {', '.join(removed)}")
    if not parts:
        parts.append(f"the same {len(after)} reordered" if before != after else "the same")
    return "; ".join(parts) + f" ({len(before)} before, {len(after)} now)"


def _render(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, Code):
        return str(value)
    if isinstance(value, tuple):
        return ", ".join(_render(v) for v in value) or "nothing"
    return show(value)


# -- pipelines: their remedy -----------------------------------------------------------------


@cache
def _remedies() -> dict[str, str]:
    data = rule_data("pipelines")
    return {k: " ".join(str(v).split()) for k, v in data.get("full_refresh", {}).items()}


def pipeline_fix(fix: str, verdict: str, family: str, facts: dict[str, str]) -> str:
    """The fix for a change to a pipeline flow: a pipeline has no checkpoint to move, so an
    incompatible change is fixed by keeping the old shape or fully refreshing the table."""
    remedy = _remedies().get(facts.get("pipeline", "sdp"), "")
    if family != "pipelines":
        if verdict != "incompatible":
            return fix
        fix = "Keep the old shape, or {full_refresh}"
    table = facts.get("pipeline_table", "TABLE")
    return fix.replace("{full_refresh}", remedy).replace("{table}", table).replace(
        "{old_table}", facts.get("old_table", "the old table"))


def documented_fix(fix: str) -> str:
    """A rule's fix as its page and `explain` show it: the pipeline placeholders a report
    fills from the finding (`{full_refresh}`, `{table}`, `{old_table}`) in general words."""
    if "{" not in fix:
        return fix
    remedy = _remedies().get("sdp", "fully refresh the table").replace(
        "`{table}`", "the table").replace("{table}", "TABLE")  # in the commands
    return fix.replace("{full_refresh}", remedy).replace("{table}", "the table").replace(
        "{old_table}", "the old table name")


# Changes after which the rows already in the table cannot stay: an AUTO CDC flow keyed or
# ordered another way, and a renamed or replaced flow (a new flow, with no checkpoint of its
# own to reset).
KEEPS_NO_ROWS = frozenset({"pipeline.cdc", "pipeline.flow_renamed", "pipeline.flows_replaced"})
# What the pipeline rules judge of the table itself (its column types and names, its
# layout: PL10, PL12, PL13, PL14): the rows already written keep the old schema or layout, so
# resetting the flow's checkpoint alone does not fix the table.
TABLE_SHAPE = frozenset({"projection.columns", "sink.partition_by"})
# Changes that no refresh undoes: a renamed table is a new table, computed from the beginning
# whatever is run; its rule's fix says how to keep the old one.
NO_REFRESH = frozenset({"pipeline.table_renamed"})


def pipeline_remedy(kind: str, verdict: str, facts: dict[str, str],
                    family: str = "") -> Remedy | None:
    """What to run after an incompatible change to a pipeline's flow: a full refresh of its
    table (a pipeline has no checkpoint to move), and, on Databricks where the table's rows
    may stay, resetting only the flow's checkpoint (`reset_checkpoint_selection`: "This
    selection will not clear the data in the flow's target table", Pipelines API, Start)."""
    if verdict != "incompatible" or kind in NO_REFRESH:
        return None
    table, flow = facts.get("pipeline_table", "TABLE"), facts.get("pipeline_flow", "FLOW")
    databricks = ("databricks pipelines start-update PIPELINE_ID --json "
                  f"'{{\"full_refresh_selection\": [\"{table}\"]}}'")
    sdp = facts.get("pipeline") == "sdp"
    keeps_no_rows = kind in KEEPS_NO_ROWS or (family == "pipelines" and kind in TABLE_SHAPE)
    heading = "" if keeps_no_rows else (
        f"if the rows already in `{table}` may stay, reset only the flow's checkpoint instead "
        "(Databricks; the table is not cleared and the flow reads its sources again from "
        "their start): databricks pipelines start-update PIPELINE_ID --json "
        f"'{{\"reset_checkpoint_selection\": [\"{flow}\"]}}'")
    return Remedy(command=f"spark-pipelines run --full-refresh {table}" if sdp else databricks,
                  note=f"  (on Databricks: {databricks})" if sdp else "", heading=heading)


# -- the codes streamlint raises itself --------------------------------------------------------
# Suppressions and acceptances (rules/streamlint.toml), the comparison with a real checkpoint
# (rules/checkpoint.toml), the unclassified change: rules like the matrix's, with `raised_by`
# where the matrix has `change`. Their findings are built from the data (`own_finding`).


def own_finding(code: str, query: str, old: Loc | None, new: Loc | None,
                variant: str = "", /, **fields: Any) -> Finding:
    """A finding of one of streamlint's own codes: name, verdict, fix and docs from its rule,
    the message its template (or the named variant) with `fields` filled in."""
    rule = next(r for r in own_rules() if r.code == code)
    template = dict(rule.variants)[variant] if variant else rule.message
    return Finding(rule.code, rule.name, rule.verdict, mask_text(template.format(**fields)),
                   rule.fix,
                   rule.docs, query, old, new, None, f"{rule.family}.{rule.name}",
                   _shown(fields.get("old")), _shown(fields.get("new")))


def _shown(value: Any) -> str | None:
    return None if value is None else mask_text(str(value))


def overriding(change: Change, finding: Finding, raised_by: str) -> Rule | None:
    """The own rule raised by `raised_by` that takes the place of this judged change (CK01
    for a setting change judged compatible that a checkpoint pinned), if one does."""
    for rule in own_rules():
        spec = dict(rule.overrides)
        if rule.raised_by == raised_by and change.kind in spec.get("change", ()) and \
                finding.verdict in spec.get("verdict", ()):
            return rule
    return None
