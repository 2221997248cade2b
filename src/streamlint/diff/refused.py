"""Queries Spark refuses to start whatever the checkpoint: a file sink asked for the update or
complete output mode (STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE), and a continuous trigger
over anything but projections and filters (UnsupportedOperationChecker.checkForContinuous:
"Continuous processing does not support ... operations"). Both measured on pyspark 4.3.0
(tests/test_refused_queries.py). From Spark 4.2, query evolution adds two
(STREAMING_QUERY_EVOLUTION_ERROR, measured on pyspark 4.3.0 in tests/test_query_evolution.py):
a streaming source without a name where source evolution is on (another source is named with
`.name()`, or spark.sql.streaming.queryEvolution.enableSourceEvolution is set):
UNNAMED_STREAMING_SOURCES_WITH_ENFORCEMENT; and sink evolution set (enableSinkEvolution), which
needs a named sink while PySpark's DataStreamWriter has no `.name()`:
UNNAMED_STREAMING_SINKS_WITH_ENFORCEMENT. Spark 4.3 also refuses a file sink partitioned by a
column of a collated string type (INVALID_PARTITION_COLUMN_DATA_TYPE, measured). The rules say
for which Spark versions each holds. And a query that calls a stateful API its Spark version's
PySpark does not have cannot start at all (`too_new`).

For a changed query, only a combination the new version makes is
reported: one the old version had could not have written the checkpoint, and the change did not
cause it (a file sink with no format written is parquet here, but Delta on Databricks: an
unchanged job is not blamed for it). A query only the new version has is reported too: the
deployment fails as surely.
"""

from __future__ import annotations

from streamlint.diff.render import describe
from streamlint.diff.shapes import sink_kind
from streamlint.diff.types import column_types
from streamlint.model import Loc, Query
from streamlint.model.schema_text import schema_fields
from streamlint.rulebook.change import Change, Code
from streamlint.rulebook.matrix import rule_for
from streamlint.rulebook.rule import Runtime, parse_version

SOURCE_EVOLUTION = "spark.sql.streaming.queryEvolution.enableSourceEvolution"
SINK_EVOLUTION = "spark.sql.streaming.queryEvolution.enableSinkEvolution"

# The APIs of a query's model that came after the oldest profile, with the Spark release whose
# PySpark added each: GroupedData's stateful APIs, and DataStreamReader.name (a named source).
# Measured on pyspark 3.5.9, 4.0.5, 4.1.4 and 4.2.1 (tests/test_spark_context.py asserts it on
# the installed release). Older, the call raises AttributeError before the query is built.
API_SINCE = {"transformWithStateInPandas": "4.0", "transformWithState": "4.1",
             "DataStreamReader.name": "4.2"}

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
    streaming = [s for s in query.sources if s.streaming]
    unnamed = [s for s in streaming if s.name is None]
    if unnamed and (len(unnamed) < len(streaming) or setting_on(query, SOURCE_EVOLUTION)):
        found.append(("unnamed_source", f"the source {describe(unnamed[0])} without a name"))
    if setting_on(query, SINK_EVOLUTION):
        found.append(("unnamed_sink", f"the {query.sink.format} sink without a name"))
    found.extend(("collated_partition", f"the {query.sink.format} sink partitioned by `{column}`"
                  f" of type {kind.upper()}") for column, kind in collated_partitions(query))
    return found


def collated_partitions(query: Query) -> list[tuple[str, str]]:
    """(column, type) of a file sink's partition columns of a collated string type, where the
    code states it (a COLLATE, `F.collate`, a declared schema): Spark 4.3 refuses them when the
    query starts (INVALID_PARTITION_COLUMN_DATA_TYPE; UTF8_BINARY is the plain string)."""
    if sink_kind(query.sink.format) != "file":
        return []
    stated = column_types(query.operators)
    schemas = [s.schema for s in query.sources if s.streaming and isinstance(s.schema, str)]
    declared = {name: type_text for name, type_text in schema_fields(schemas[0])
                if type_text} if len(schemas) == 1 else {}
    found = []
    for column in query.sink.partition_by:
        if not isinstance(column, str):
            continue
        kind = stated[column] if column in stated else declared.get(column)
        if kind and kind.lower().startswith("string collate ") and \
                kind.lower() != "string collate utf8_binary":
            found.append((column, kind.lower()))
    return found


def setting_on(query: Query, key: str) -> bool:
    """The query's session sets `key` to true (a value known only at run time is not)."""
    return any(s.key == key and str(s.value).strip().lower() == "true" for s in query.config)


def newly_refused(old: Query, new: Query) -> list[tuple[str, str]]:
    """The refusals of `new` that `old` did not have: by reason, or for a partition column by
    the column (another column partitioned is another refusal)."""
    before = {_key(reason, what) for reason, what in refused(old)}
    return [(reason, what) for reason, what in refused(new) if _key(reason, what) not in before]


def _key(reason: str, what: str) -> str:
    return what if reason == "collated_partition" else reason


def upgrade_refusals(old: Query, new: Query, version: Runtime,
                     base: str) -> list[Change]:
    """What both versions of a query do that Spark `version` refuses at start and Spark `base`
    (the one the old version pinned) did not: the upgrade, not the code, stops the query."""
    newly = {_key(reason, what) for reason, what in newly_refused(old, new)}
    found = []
    for reason, what in refused(new):
        shown = Code(f"{what} (unchanged since the base, which pins Spark {base})")
        change = Change("query.refused", what, None, shown, old.sink.loc, new.sink.loc,
                        new.label, {"reason": reason,
                                    "stateful": "true" if new.stateful else "false"})
        now, before = rule_for(change, version), rule_for(change, Runtime(parse_version(base)))
        if _key(reason, what) not in newly and now is not None and \
                now.verdict == "incompatible" and (before is None or before.verdict != now.verdict):
            found.append(change)
    return found


def refused_new_query(new: Query) -> list[Change]:
    """A query only the new version has, which Spark will refuse to start: the deployment
    fails as surely as with a changed query (QY17), though no checkpoint is involved."""
    return [Change("query.refused", what, None, Code(what), None, new.sink.loc, new.label,
                   {"reason": reason, "stateful": "true" if new.stateful else "false"})
            for reason, what in refused(new)]


def too_new(old: Query | None, new: Query, version: tuple[int, ...]) -> list[Change]:
    """The stateful APIs the new query calls that PySpark of Spark `version` does not have:
    the query cannot start there (AttributeError), whatever the checkpoint. Where the old
    version called the same API, it could not start on that Spark either: not this change's
    doing, a note (QY18) that says which Spark has it."""
    had = _apis(old) if old is not None else {}
    found = []
    for api, loc in _apis(new).items():
        since = API_SINCE[api]
        if parse_version(since) <= version:
            continue
        what = f"{api}, which PySpark has from Spark {since} on"
        if api in had:
            found.append(Change("query.already_present", what, None, Code(what), None, loc,
                                new.label, {"problem": "query.refused"}))
            continue
        found.append(Change("query.refused", what, None, Code(what), None, loc, new.label,
                            {"reason": "newer_api", "since": since,
                             "stateful": "true" if new.stateful else "false"}))
    return found


def _apis(query: Query) -> dict[str, Loc]:
    """The APIs of API_SINCE a query calls, each where it first does."""
    found: dict[str, Loc] = {}
    for op in query.operators:
        if getattr(op, "api", "") in API_SINCE:
            found.setdefault(op.api, op.loc)
    for source in query.sources:
        if source.streaming and source.name is not None:
            found.setdefault("DataStreamReader.name", source.loc)
    return found
