"""The changes the diff reports: their kinds, the record each is, and the query-level ones
(a query added or removed, code streamlint could not read) that need no pairing."""

from __future__ import annotations

from typing import Any

from streamlint.model import JobFile, Loc, Query, Source, is_known, option
from streamlint.records import factory, record

# Every kind of change the diff reports; each has at least one rule (tested), and a rule
# naming a kind that is not here is refused when the rules load.
CHANGE_KINDS = frozenset({
    "query.checkpoint", "query.name", "query.added", "query.removed", "unresolved", "unseen",
    "query.moved", "query.shared_checkpoint", "query.volatile_checkpoint",
    "source.added", "source.removed", "source.reordered", "source.type", "source.identity",
    "source.rate_limit", "source.option", "source.schema", "source.name",
    "stateful.added", "stateful.removed", "stateful.replaced",
    "agg.method", "agg.keys", "agg.window", "agg.aggregates", "agg.function", "agg.input",
    "agg.alias", "agg.input_type", "dedup.kind", "dedup.keys",
    "join.type", "join.keys", "join.condition", "join.input", "join.state_schema",
    "state.api", "state.keys", "state.schema", "state.timeout", "state.output_mode",
    "state.output_schema", "state.function",
    "watermark.added", "watermark.removed", "watermark.column", "watermark.delay",
    "filter.changed", "projection.same_columns", "projection.columns", "static_join.changed",
    "sink.format", "sink.path", "sink.topic", "sink.table", "sink.foreach_code", "sink.option",
    "sink.partition_by", "output_mode", "trigger", "config.changed",
    "pipeline.flow_renamed", "pipeline.table_renamed", "pipeline.flow_added",
    "pipeline.flow_removed", "pipeline.expectation", "pipeline.cdc",
})
# Changes about an operator or source being there at all: their verdict does not depend on
# the (possibly unresolved) details of what was added or removed.
STRUCTURAL = {
    "source.added", "source.removed", "source.reordered", "stateful.added", "stateful.removed",
    "stateful.replaced", "agg.method", "dedup.kind", "state.api", "query.added",
    "query.removed", "pipeline.flow_renamed", "pipeline.table_renamed", "pipeline.flow_added",
    "pipeline.flow_removed",
}
# What a deliberate reset (a new checkpoint with explicit starting positions) leaves to judge:
# the sink the new query writes into is the same table, topic or folder as before.
STILL_MATTERS_AFTER_RESET = frozenset({
    "query.checkpoint", "unresolved", "sink.format", "sink.path", "sink.topic", "sink.table",
    "sink.foreach_code", "sink.option", "sink.partition_by", "output_mode",
    "projection.columns",
})
# The note the extractor leaves for a DataFrame built by code in another module.
EXTERNAL_NOTE = "which streamlint cannot follow"


@record
class Change:
    """One difference between two query shapes, before any verdict."""

    kind: str
    subject: str  # what changed, in words: "the Kafka topic", "grouping keys", ...
    old: Any
    new: Any
    old_loc: Loc | None
    new_loc: Loc | None
    query: str
    facts: dict[str, str] = factory(dict)  # type: ignore[assignment]


def changed_modules(old: JobFile, new: JobFile) -> frozenset[str]:
    """The modules followed on one side only, or with different text on each."""
    return frozenset(path for path, _ in set(old.modules) ^ set(new.modules))


def query_added(new: Query) -> Change:
    return Change("query.added", "a streaming query", None, new.label, None, new.sink.loc,
                  new.label, {"stateful": "true" if new.stateful else "false"})


def query_removed(old: Query) -> Change:
    return Change("query.removed", "a streaming query", old.label, None, old.sink.loc, None,
                  old.label, {"stateful": "true" if old.stateful else "false"})


def unseen_changes(old: JobFile, new: JobFile) -> list[Change]:
    """What streamlint could not read in either version, one change each (never dropped).

    Two versions that are the same code (the job and every module it was followed into)
    cannot differ there; anything else unread may hide a changed query.
    """
    if old.text == new.text and old.modules == new.modules:
        return []
    changes: list[Change] = []
    olds = {(u.about, u.what): u for u in old.unseen}
    news = {(u.about, u.what): u for u in new.unseen}
    for key, item in news.items():
        before = olds.get(key)
        if before is not None and item.fingerprint and before.fingerprint == item.fingerprint:
            continue  # the same unfollowed code handed the same stream: nothing changed here
        changes.append(Change("unseen", item.what, None, None,
                              before.loc if before else None, item.loc, "(not read)",
                              {"about": item.about, "side": "new"}))
    for key, item in olds.items():
        if key not in news:
            changes.append(Change("unseen", item.what, None, None, item.loc, None,
                                  "(not read)", {"about": item.about, "side": "old"}))
    return changes


# Options that pin where a fresh query starts reading: a position, not a policy.
START_OPTIONS = ("startingOffsets", "startingOffsetsByTimestamp", "startingTimestamp",
                 "startingVersion")
START_POLICIES = ("latest", "earliest")


def _start(source: Source) -> tuple:
    return tuple((key, option(source.options, key)) for key in START_OPTIONS
                 if option(source.options, key) is not None)


def deliberate_reset(old: Query, new: Query) -> bool:
    """A new checkpoint whose query is told where to start: every streaming source of the new
    query names an explicit position (Kafka offsets as JSON, a Delta version or timestamp)
    set in this very change. That is the documented way to move a checkpoint without
    skipping or re-reading data, so it is a decision to note, not an accident to stop."""
    streaming = [s for s in new.sources if s.streaming]
    if not streaming:
        return False
    for source in streaming:
        start = _start(source)
        if not start or not all(is_known(v) for _, v in start):
            return False
        if all(str(v).strip().lower() in START_POLICIES for _, v in start):
            return False
    before = [_start(s) for s in old.sources if s.streaming]
    return before != [_start(s) for s in streaming]

