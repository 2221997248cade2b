"""Queries Spark refuses to start whatever the checkpoint: a file sink asked for the update or
complete output mode (STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE), and a continuous trigger
over anything but projections and filters (UnsupportedOperationChecker.checkForContinuous:
"Continuous processing does not support ... operations"). Both measured on pyspark 4.3.0
(tests/test_refused_queries.py). For a changed query, only a combination the new version makes is
reported: one the old version had could not have written the checkpoint, and the change did not
cause it (a file sink with no format written is parquet here, but Delta on Databricks: an
unchanged job is not blamed for it). A query only the new version has is reported too: the
deployment fails as surely.
"""

from __future__ import annotations

from streamlint.core import Change, Code
from streamlint.diff.shapes import sink_kind
from streamlint.model import Query

# What a continuous trigger refuses, by the operator's kind, in words.
_NOT_CONTINUOUS = {
    "watermark": "a watermark", "aggregation": "an aggregation",
    "deduplication": "a deduplication", "join": "a stream-stream join",
    "static_join": "a join with a static DataFrame", "arbitrary_state": "arbitrary state",
    "union": "a union",
}


def refused(query: Query) -> list[tuple[str, str]]:
    """(reason, what Spark refuses) for each way Spark would refuse to start this query."""
    found = []
    mode = str(query.sink.output_mode or "append").lower()
    if sink_kind(query.sink.format) == "file" and mode in ("update", "complete"):
        found.append(("output_mode", f"the {query.sink.format} sink in {mode} mode"))
    if query.sink.trigger[0] == "continuous":
        kinds = sorted({_NOT_CONTINUOUS[k] for k in (getattr(o, "kind", "") for o in
                                                     query.operators) if k in _NOT_CONTINUOUS})
        if len(query.sources) > 1 and "a union" not in kinds:
            kinds.append("more than one source")
        if kinds:
            found.append(("continuous", f"a continuous trigger with {', '.join(kinds)}"))
    return found


def newly_refused(old: Query, new: Query) -> list[tuple[str, str]]:
    before = {reason for reason, _ in refused(old)}
    return [(reason, what) for reason, what in refused(new) if reason not in before]


def refused_new_query(new: Query) -> list[Change]:
    """A query only the new version has, which Spark will refuse to start: the deployment
    fails as surely as with a changed query (QY17), though no checkpoint is involved."""
    return [Change("query.refused", what, None, Code(what), None, new.sink.loc, new.label,
                   {"reason": reason, "stateful": "true" if new.stateful else "false"})
            for reason, what in refused(new)]
