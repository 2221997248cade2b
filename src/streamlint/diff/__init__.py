"""Judge a job change: match queries, compare shapes, give each change its rule's verdict."""

from __future__ import annotations

from streamlint.diff import pipelines
from streamlint.diff.already import already_present, judged_starts, unchanged_reads, unparsable
from streamlint.diff.checkpoints import shared_in_file, shared_keys, volatile_changes
from streamlint.diff.compare import (
    Change,
    Code,
    changed_modules,
    compare_queries,
    query_added,
    query_removed,
    unseen_changes,
)
from streamlint.diff.refused import refused_new_query, too_new, upgrade_refusals
from streamlint.diff.unkept import judged_unkept
from streamlint.model import JobFile, Loc, Query, show
from streamlint.model.identity import checkpoint_key
from streamlint.model.labels import pair_labels
from streamlint.model.records import record, replace
from streamlint.rulebook.change import DEFAULT_SPARK_VERSION
from streamlint.rulebook.matrix import judge, worst
from streamlint.rulebook.profiles import runtime_of


@record
class Report:
    """Everything a formatter needs: both files, the query pairs, the findings."""

    old: JobFile
    new: JobFile
    pairs: tuple[tuple[Query | None, Query | None], ...]
    findings: tuple  # tuple[Finding, ...]
    verdict: str
    spark_version: str
    # In git mode: how the file changed ("modified", "renamed", "added", "deleted"), and the
    # findings that `# streamlint: ignore[CODE] reason` comments silenced.
    status: str = "modified"
    suppressed: tuple = ()  # tuple[Finding, ...]
    # Other job files the findings point into: where a query moved from (git mode).
    others: tuple[JobFile, ...] = ()
    # Where `spark_version` came from, in the user's words (`streamlint.workflow.target`): the
    # command line, the configuration, a pin the project declares, or the default.
    spark_source: str = ""
    # `check` where the base pins another Spark than the head (an upgrade or a downgrade):
    # the base's version and where it was read; empty otherwise.
    base_spark_version: str = ""
    base_spark_source: str = ""
    # The Databricks runtime judged for, as named ("17.3", "18"), which runs `spark_version`;
    # empty on Apache Spark.
    databricks: str = ""


def diff_jobs(old: JobFile, new: JobFile, spark_version: str = DEFAULT_SPARK_VERSION,
              base_version: str = "", databricks: str = "") -> Report:
    """`base_version`: the Spark the old version pinned, where it differs (`check`);
    `databricks`: the Databricks runtime that runs `spark_version`, if one was named."""
    return diff_pairs(old, new, tuple(pipelines.match(old.queries, new.queries)), spark_version,
                      base_version=base_version, databricks=databricks)


def _through(query: Query | None, loc: Loc | None) -> tuple[Loc, ...]:
    """The calls a change's place was made through: of an operator, those the run was
    inside when it was applied (`Query.made_through`); else those the query was started
    through (`Sink.called_from`)."""
    if query is None:
        return ()
    return dict(query.made_through).get(loc, query.sink.called_from) if loc else \
        query.sink.called_from


def diff_pairs(old: JobFile, new: JobFile, pairs: tuple[tuple[Query | None, Query | None], ...],
               spark_version: str = DEFAULT_SPARK_VERSION, extra: tuple[Change, ...] = (),
               others: tuple[JobFile, ...] = (), base_version: str = "",
               databricks: str = "") -> Report:
    """Judge given query pairs (git mode pairs queries across files too) and `extra` changes
    found elsewhere, with what every new version is checked for: its checkpoints. Where the
    old version pinned another Spark (`base_version`), what both versions do that the new
    Spark refuses and the old one did not is reported too (`refused.upgrade_refusals`)."""
    version = runtime_of(spark_version, databricks)
    if old.syntax_error is not None or new.syntax_error is not None:
        findings = [judge(change, version) for change in unparsable(old, new)]
        return Report(old, new, (), tuple(findings), worst([f.verdict for f in findings]),
                      spark_version, others=others, databricks=databricks)
    changes = unseen_changes(old, new)
    changes.extend(pipelines.flow_changes(pairs, old, new))
    shared = [*extra, *shared_in_file(new.queries, version)]
    # A new query on a checkpoint another query writes does not start from its sources'
    # startingOffsets: it resumes (or fights over) that checkpoint, which QY11/QY12 say.
    taken = shared_keys(shared)
    helpers = changed_modules(old, new)
    labels = pair_labels(pairs)
    for (before, after), label in zip(pairs, labels, strict=True):
        if pipelines.is_flow(before) or pipelines.is_flow(after):
            continue  # judged above, by the flow's identity
        if before is not None and after is not None:
            found = judged_unkept(before, after,
                                  judged_starts(before, after,
                                                compare_queries(before, after, helpers)),
                                  lambda c: judge(c, version).message)
            if base_version and base_version != spark_version:
                found += upgrade_refusals(before, after, version, base_version)
        elif after is not None and checkpoint_key(after) not in taken:
            found = [query_added(after), *refused_new_query(after)]
        elif before is not None:
            found = [query_removed(before)]
        else:
            continue
        if after is not None:
            found += too_new(before, after, version.spark)
        default = (after or before).label  # type: ignore[union-attr]
        changes.extend(replace(c, query=label, old_calls=_through(before, c.old_loc),
                               new_calls=_through(after, c.new_loc))
                       if c.query == default else c for c in merge_identity_changes(found))
    standing = [*shared, *volatile_changes(new.queries)]
    changes.extend(already_present(standing, [*shared_in_file(old.queries, version),
                                              *volatile_changes(old.queries)],
                                   lambda c: judge(c, version).verdict == "compatible"))
    if old.text == new.text and old.modules == new.modules:
        changes = unchanged_reads(changes)
    changes = _relabel(changes, pairs, labels)
    findings = _merge_repeats([judge(change, version) for change in changes])
    return Report(old, new, pairs, findings, worst([f.verdict for f in findings]), spark_version,
                  others=others,
                  base_spark_version=base_version if base_version != spark_version else "",
                  databricks=databricks)


def _relabel(changes: list[Change], pairs: tuple[tuple[Query | None, Query | None], ...],
             labels: list[str]) -> list[Change]:
    """Changes found across queries (shared checkpoints, flows) named as the pairs are, where
    their query's plain label names one pair only."""
    by_default: dict[str, set[str]] = {}
    for (before, after), label in zip(pairs, labels, strict=True):
        for query in (before, after):
            if query is not None:
                by_default.setdefault(query.label, set()).add(label)
    unique = {default: next(iter(found)) for default, found in by_default.items()
              if len(found) == 1}
    return [replace(c, query=unique[c.query]) if c.query in unique else c for c in changes]


def merge_identity_changes(changes: list[Change]) -> list[Change]:
    """One change for a source that reads its input another way: `subscribe` ->
    `subscribePattern` on the same topic is one change of what is read, not two."""
    identity = [c for c in changes if c.kind == "source.identity"]
    groups: dict[tuple, list[Change]] = {}
    for change in identity:
        groups.setdefault((change.old_loc, change.new_loc), []).append(change)
    merged: dict[int, Change | None] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        olds = tuple(f"{_key(c)}={show(c.old)}" for c in group if c.old is not None)
        news = tuple(f"{_key(c)}={show(c.new)}" for c in group if c.new is not None)
        subject = group[0].subject.split(" source option")[0] + " source's input"
        facts = dict(group[0].facts)
        facts["key"] = ",".join(c.facts.get("key", "") for c in group)
        first = replace(group[0], subject=subject, old=Code(", ".join(olds)) if olds else None,
                        new=Code(", ".join(news)) if news else None, facts=facts)
        merged[id(group[0])] = first
        for other in group[1:]:
            merged[id(other)] = None
    out: list[Change] = []
    for change in changes:
        if id(change) not in merged:
            out.append(change)
        elif merged[id(change)] is not None:
            out.append(merged[id(change)])  # type: ignore[arg-type]
    return out


def _key(change: Change) -> str:
    """The option as the code spells it (the subject quotes it), else its lower-case key."""
    parts = change.subject.split("`")
    return parts[1] if len(parts) >= 3 else change.facts.get("key", "")


def _merge_repeats(findings: list) -> tuple:
    """One finding for a session setting shared by every query in the file, not one each."""
    merged: dict[tuple, object] = {}
    for finding in findings:
        key = (finding.code, finding.message, finding.old, finding.new)
        if key in merged:
            first = merged[key]
            merged[key] = replace(first, query=f"{first.query}, {finding.query}",
                                  queries=(*(first.queries or (first.query,)), finding.query))
        else:
            merged[key] = finding
    return tuple(merged.values())
