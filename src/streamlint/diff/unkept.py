"""A query whose old version kept no checkpoint: there is nothing for the new code to restart.

Without checkpointLocation and without a query name, Spark gives a query a temporary
checkpoint deleted when it stops (console, memory, noop, and foreach/foreachBatch in recent
releases), a new random folder under spark.sql.streaming.checkpointLocation when a deployment
sets that root, or refuses to start it ("checkpointLocation must be specified");
tests/test_spark_stream_facts.py measures each on pyspark. Every start of such a query began
anew, so a change whose only hazard is the checkpoint (the state it keeps, the offsets it
resumes from, the settings its offsets log pins) cannot break a restart: it is a note (QY30),
never the change's verdict. What the change does to the query's output still matters (a
table's schema, a topic, a path), and so does a new version Spark refuses or that cannot
start: those findings stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlint.diff.changes import Change
from streamlint.diff.sinks import columns_sink
from streamlint.model import Note, Query, Unknown

# Options that give a query its checkpoint (`queryName` is an option too: DataStreamWriter
# .queryName sets it), compared as Spark does, without case.
_CHECKPOINT_OPTIONS = frozenset({"checkpointlocation", "queryname"})

# The kinds of change whose only hazard is the checkpoint: state (aggregations,
# deduplications, stream-stream joins, arbitrary state, watermarks), what the offsets resume
# (sources) and what the offsets log pins (output mode, trigger, settings).
_CHECKPOINT_ONLY = ("agg.", "dedup.", "join.", "state.", "stateful.", "watermark.", "source.")
_CHECKPOINT_KINDS = frozenset({"output_mode", "trigger", "config.changed"})

# Code streamlint could not read can change anything, the output columns too; only where the
# sink keeps no schema of its own is the checkpoint all it could break.
_UNREAD = frozenset({"unresolved", "unseen"})
_SCHEMA_FREE_SINKS = frozenset({"console", "memory", "noop", "foreach"})


def keeps_no_checkpoint(query: Query) -> bool:
    """Whether every start of `query` began anew: its code sets no checkpointLocation and no
    query name, and no option it could not read (a `**dict` whose keys it does not know, a
    key known only at run time) could set one."""
    sink = query.sink
    if sink.checkpoint is not None or sink.query_name is not None:
        return False
    for key, value in sink.options:
        if isinstance(key, Note):
            return False
        if key.startswith("**"):
            keys = value.keys if isinstance(value, Unknown) else None
            if keys is None or {k.lower() for k in keys} & _CHECKPOINT_OPTIONS:
                return False
        elif key.lower() in _CHECKPOINT_OPTIONS:
            return False
    return True


def _checkpoint_only(change: Change, query: Query) -> bool:
    if change.kind in _CHECKPOINT_KINDS or change.kind.startswith(_CHECKPOINT_ONLY):
        return True
    if change.kind in _UNREAD:
        return columns_sink(query.sink) in _SCHEMA_FREE_SINKS
    return False


def judged_unkept(before: Query, after: Query, found: list[Change],
                  described: Callable[[Change], str]) -> list[Change]:
    """`found`, the changes of a paired query, where its old version kept no checkpoint: each
    whose only hazard is the checkpoint becomes a note that says so (`query.unkept`), keeping
    its description (`described(change)`, its message) and locations."""
    if not keeps_no_checkpoint(before):
        return found
    return [Change("query.unkept", described(c), c.old, c.new, c.old_loc, c.new_loc, c.query,
                   {"problem": c.kind})
            if _checkpoint_only(c, after) else c for c in found]
