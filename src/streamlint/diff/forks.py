"""A branch the extractor did not read that writes the very DataFrame of the branch it read,
with other settings (a format, a path, partition columns).

Its note names only those settings and their values, so it reads the same in both versions
when the change is elsewhere: to the DataFrame, or to a setting both branches share. Such a
change is then the same change on both branches, and the diff judges it on the branch read.
That holds unless the change may act differently under the other branch's settings: a
change judged by the sink's kind when the other branch writes another format, a query name
beside another checkpoint, a checkpoint moved on one branch only. Then the note is still
asked about (UN01), naming the change.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlint.core import DEFAULT_SPARK_VERSION, Change, same_dataframe_settings
from streamlint.model import Fork, Query
from streamlint.records import replace
from streamlint.rules import judge, parse_version

# Changes judged by the sink's kind: on a branch writing another format they may be judged
# otherwise (or, for options, compared at all).
_BY_SINK_KIND = frozenset({
    "sink.format", "sink.path", "sink.topic", "sink.table", "sink.foreach_code",
    "sink.foreach_writes", "sink.partition_by", "projection.columns", "query.volatile_checkpoint",
})
# Never judged for the other branch from the branch read: what could not be read, and a
# checkpoint change (a deliberate reset drops the branch read's other changes, which the
# other branch, on its own checkpoint, would still meet).
_NEVER = frozenset({"unresolved", "unseen", "query.checkpoint"})


def settings_of(note: str) -> frozenset[str] | None:
    """The settings a same-DataFrame branch sets differently, or None for any other note."""
    return same_dataframe_settings(note)


# Changes judged the same whatever the output mode or trigger: a continuous trigger refuses
# most operators (a watermark, a join), an output mode decides what an aggregation emits.
_ANY_MODE = frozenset({"source.rate_limit", "source.option", "sink.option", "query.name",
                       "config.changed"})


def may_differ(change: Change, settings: frozenset[str]) -> bool:
    """Whether `change`, judged on the branch read, may be judged otherwise on a branch that
    writes the same DataFrame with these settings changed."""
    if change.kind in _NEVER:
        return True
    if ({"trigger", "output mode"} & settings) and change.kind not in _ANY_MODE:
        return True
    if change.kind in _BY_SINK_KIND or change.kind == "output_mode":
        # A file sink takes only append; a memory sink's table is the query name.
        return "format" in settings
    if change.kind == "query.name":  # compared only where the checkpoint stays
        return bool({"format", "option `checkpointlocation`"} & settings)
    return False


def other_branch_changes(old_query: Query, new_query: Query, old: Fork, new: Fork,
                         compare: Callable[[Query, Query], list[Change]]
                         ) -> list[Change] | None:
    """The changes on a run-time fork's branch not read, or None where they cannot be told.

    The note on such a fork names a digest of the other branch, so any edit there makes the
    note differ. Where both versions carry the branch as data (`Fork.other`) under the same
    condition, it is compared with its old self as a query of its own (the read branch's
    sink, its own DataFrame). What a writer on that branch sets besides must be the same."""
    if (old.other is None or new.other is None or old.condition != new.condition
            or old.which != new.which or old.other[4] != new.other[4]):
        return None
    before, after = (replace(query, sources=shape[0], operators=shape[1],
                             output_columns=shape[2], unresolved=shape[3])
                     for query, shape in ((old_query, old.other), (new_query, new.other)))
    return [replace(change, facts={**change.facts, "branch": new.condition})
            for change in compare(before, after)
            if judge(change, _VERSION).verdict != "compatible"]


_VERSION = parse_version(DEFAULT_SPARK_VERSION)
