"""The leaf core the diff, the rules and the reports share: what a change is, its kinds,
shown code, and the Spark version the rules judge for by default. Imports nothing of
streamlint but the model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamlint.model import Loc
from streamlint.model.records import factory, record

DEFAULT_SPARK_VERSION = "4.3"  # the rules' default (streamlint.rulebook.matrix re-exports it)

# The verdicts, least severe first: every ordering of verdicts is this one.
VERDICTS = ("compatible", "review", "incompatible")

# What every command exits with (README: "Exit codes"), as griffe and compilers do.
EXIT_OK = 0  # compatible (findings to review are printed but do not fail)
EXIT_INCOMPATIBLE = 1  # incompatible, or anything to review with --strict
EXIT_ERROR = 2  # a usage or input error: no verdict


def worst(verdicts: Iterable[str | None]) -> str:
    """The most severe verdict of several (a missing one, None, counts for nothing); none at
    all is compatible."""
    return max((v for v in verdicts if v), key=VERDICTS.index, default="compatible")


def exit_code(verdict: str, *, errors: bool = False, strict: bool = False,
              exit_zero: bool = False) -> int:
    """The one exit-code ladder of every command: an input error beats everything (even
    `--exit-zero`: there is no verdict to ignore), then `--exit-zero`, then the verdict
    (review fails only with `--strict`)."""
    if errors:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_OK
    if verdict == "incompatible" or (strict and verdict == "review"):
        return EXIT_INCOMPATIBLE
    return EXIT_OK


# The facts each kind of change carries: what a rule's `when` may match, beside the runtime
# (a rule's `spark` and `databricks` ranges). A fact's values are listed where they are a
# closed set; None is free text (a setting's key, a table's name). The rules loader refuses a
# `when` key a kind does not carry, or a value outside its set, so a typo cannot silently
# never match.
# Every change of a pipeline's flow also carries PIPELINE_FACTS.
BOOL = frozenset({"true", "false"})
# `streamlint.diff.shapes.sink_kind`: what a sink is, for the rules.
SINK_KINDS = frozenset({"file", "foreach", "kafka", "delta", "iceberg", "hudi", "table",
                        "memory", "console", "noop", "other", "unknown"})
# What a changed source option is (rules/options.toml, `streamlint.rulebook.options`): its class
# decides which rule judges it.
OPTION_CLASSES = frozenset({"what-is-read", "what-is-read-review", "start-position",
                            "rate-limit", "consumer-tuning", "security-credential",
                            "schema-handling", "failure-policy", "ignored", "unknown"})
JOIN_TYPES = frozenset({"inner", "left_outer", "right_outer", "full_outer", "left_semi",
                        "left_anti", "cross"})
OUTPUT_MODES = frozenset({"append", "update", "complete"})
STATE_APIS = frozenset({"applyInPandasWithState", "transformWithStateInPandas",
                        "transformWithState", "flatMapGroupsWithState", "mapGroupsWithState"})
# How a transformWithState processor's declared state changed (`diff.operators.evolution`).
STATE_EVOLUTIONS = frozenset({
    "ttl_duration",   # only a TTLConfig's duration changed
    "ttl_added", "ttl_removed",
    "fields",         # value fields added, removed, reordered or widened (upcast)
    "narrowed",       # a value field's type narrowed or changed to an unrelated type
    "variable_type",  # a variable changed kind (value, list, map)
    "variables",      # variables added or removed, the others unchanged
    "other",          # anything else, or not readable
})
Facts = dict[str, "frozenset[str] | None"]
# Which restart-relevant fact a value from outside the code reaches (`model.Input.about`).
INPUT_FACTS = frozenset({"checkpoint", "source", "window", "grouping", "dedup", "join"})
_S: Facts = {"stateful": BOOL}
_NAMED: Facts = {"named": BOOL}
PIPELINE_FACTS: Facts = {"pipeline": frozenset({"sdp", "dlt"}), "pipeline_table": None,
                         "pipeline_flow": None}
FACTS: dict[str, Facts] = {
    # `pinned`: which versions set the checkpoint in the code; `unpinned`: where the other
    # version's checkpoint comes from (diff/compare.py `_pinning`).
    "query.checkpoint": {**_S, "reset": frozenset({"explicit", "no"}),
                         "pinned": frozenset({"both", "old", "new"}),
                         "unpinned": frozenset({"root", "temporary", "named",
                                                        "fresh"})},
    "query.name": _S, "query.added": _S, "query.removed": _S, "query.moved": _S,
    "query.shared_checkpoint": {**_S, "alike": BOOL},
    "query.volatile_checkpoint": {**_S, "sink": None},
    # Spark refuses the new query from any checkpoint (diff/refused.py).
    # `since`: for `newer_api`, the Spark release whose PySpark added the API.
    "query.refused": {**_S, "reason": frozenset({"output_mode", "continuous", "unnamed_source",
                                                 "unnamed_sink", "collated_partition",
                                                 "newer_api"}),
                      "since": None},
    # A problem of the new version that the old version already had (diff/already.py):
    # `problem` is the change kind it would have been.
    "query.already_present": {"problem": frozenset({"query.shared_checkpoint",
                                                    "query.volatile_checkpoint",
                                                    "input.unread", "query.fails",
                                                    "query.refused"})},
    # A call on the way to the query's start raises every time it runs (`model.Failure`,
    # diff/already.py): in the new version only (`query.fails`), or in the old one only.
    "query.fails": {**_S, "error": None}, "query.old_fails": {**_S, "error": None},
    # A change whose only hazard is the checkpoint, to a query whose old version kept none
    # (diff/unkept.py): `problem` is the change kind it would have been.
    "query.unkept": {"problem": None},
    "unresolved": {**_S, "about": None},  # a change kind, or "code"
    "unseen": {"about": None, "side": frozenset({"old", "new"})},
    # A way a new run-time condition opens beside a branch that continues the old query.
    "fork.alternative": _S,
    # A restart-relevant value from outside the code (diff/inputs.py).
    "input.default": {**_S, "about": INPUT_FACTS}, "input.unread": {**_S, "about": INPUT_FACTS},
    "input.moved": {**_S, "about": INPUT_FACTS,
                    "direction": frozenset({"to", "from", "between"})},
    "source.added": {**_S, **_NAMED}, "source.removed": {**_S, **_NAMED},
    "source.reordered": {**_S, **_NAMED},
    "source.type": {**_S, **_NAMED, "old_format": None, "new_format": None},
    "source.identity": {**_S, **_NAMED, "key": None},
    "source.rate_limit": _S,
    # `option_docs`: the page the option's class was read from, cited by the finding.
    "source.option": {**_S, "key": None, "option_class": OPTION_CLASSES, "option_docs": None},
    # `fields`: the declared schema only gained (or lost) fields; `used`: whether any of those
    # fields is read downstream (an operator or the sink), "unknown" when that is not known.
    "source.schema": {**_S, "fields": frozenset({"added", "removed", "other"}),
                      "used": frozenset({"true", "false", "unknown"})},
    # `naming`: the source gained a name, lost it, or was named otherwise.
    "source.name": {**_S, "naming": frozenset({"added", "removed", "renamed"})},
    "stateful.added": _S, "stateful.removed": _S, "stateful.replaced": _S,
    "agg.method": _S, "agg.keys": _S, "agg.window": _S, "agg.aggregates": _S,
    "agg.function": _S, "agg.input": _S, "agg.alias": _S,
    "agg.input_type": {**_S, "typed": BOOL},
    # `reordered`: the same key columns in another order (Spark compares keys by position).
    "dedup.kind": _S, "dedup.keys": {**_S, "reordered": BOOL},
    "join.type": {**_S, "old_how": JOIN_TYPES, "new_how": JOIN_TYPES, "inner": BOOL},
    "join.keys": _S, "join.condition": _S, "join.input": _S,
    "join.state_schema": {**_S, "side": frozenset({"left", "right"})},
    "state.api": _S,
    "state.keys": {**_S, "computed": BOOL},
    "state.schema": {**_S, "api": STATE_APIS, "encoding": frozenset({"avro", "unsaferow"}),
                     "evolution": STATE_EVOLUTIONS},
    "state.timeout": {**_S, "api": STATE_APIS},
    "state.output_mode": {**_S, "api": STATE_APIS},
    "state.output_schema": _S, "state.function": _S,
    "watermark.added": _S, "watermark.removed": _S, "watermark.column": _S,
    "watermark.delay": _S,
    "filter.changed": _S, "projection.same_columns": _S,
    # The sink before and after: a sink that never saw the old columns does not care.
    # `narrowed`: a column kept its name, and its new type may not hold its old values.
    # `widened`: every retyped column takes its new type by Delta's type widening.
    # `renamed`: a column is now written under another name (an alias of the old column);
    # `column_mapping`: the table's `delta.columnMapping.mode` is name/id in both versions
    # ("on"), unset or none in both ("off"), else "unknown".
    "projection.columns": {**_S, "old_sink": SINK_KINDS, "new_sink": SINK_KINDS,
                           "narrowed": BOOL, "widened": BOOL, "reordered": BOOL,
                           "renamed": BOOL,
                           "column_mapping": frozenset({"on", "off", "unknown"})},
    "static_join.changed": _S,
    # `known`: both formats are ones streamlint knows (neither kind is "other");
    # `same_target`: both write to one path or table (the same directory after the change).
    "sink.format": {**_S, "old_kind": SINK_KINDS, "new_kind": SINK_KINDS, "known": BOOL,
                    "same_target": BOOL},
    "sink.path": {**_S, "sink": SINK_KINDS}, "sink.topic": {**_S, "sink": SINK_KINDS},
    "sink.table": {**_S, "sink": SINK_KINDS}, "sink.foreach_code": {**_S, "sink": SINK_KINDS},
    "sink.foreach_writes": _S,
    # `effects`: what differs in the data written ("columns", "rows", "query"), joined by ",".
    "sink.foreach_data": {**_S, "effects": None},
    "sink.option": _S,
    # `clustered`: partition columns dropped for liquid clustering (`cluster_by`).
    "sink.partition_by": {**_S, "sink": SINK_KINDS, "clustered": BOOL},
    # `watermark`: the query has one (its state is evicted as the watermark passes).
    "output_mode": {**_S, "old_mode": OUTPUT_MODES, "new_mode": OUTPUT_MODES,
                    "watermark": BOOL},
    # `checkpoint_v1`, for a switch to Real-Time Mode: "refused" when the old version wrote
    # its checkpoint with state store checkpoint format 1 (the default), "allowed" when the new
    # version sets the escape hatch for that, "no" otherwise (diff/evolution.py checkpoint_v1).
    "trigger": {**_S, "continuous": BOOL, "real_time": BOOL,
                "checkpoint_v1": frozenset({"refused", "allowed", "no"})},
    # `stateful` "unknown": a query streamlint did not read whole (it may hold state).
    # `rocksdb_or_unset` (the state store provider's key only): each version sets a RocksDB
    # provider or leaves it to the runtime's default, RocksDB on Databricks 17.3+ (CF08).
    "config.changed": {"stateful": frozenset({"true", "false", "unknown"}), "key": None,
                       "rocksdb_or_unset": BOOL},
    "pipeline.flow_renamed": _S,
    "pipeline.flows_replaced": _S,
    "pipeline.table_renamed": {**_S, "old_table": None},
    # `materialized`: the table is a materialized view in the other version (its type changes).
    "pipeline.flow_added": {**_S, "existing": BOOL, "materialized": BOOL},
    "pipeline.flow_removed": {**_S, "table_kept": BOOL, "materialized": BOOL},
    "pipeline.expectation": {"action": frozenset({"warn", "drop", "fail", "unknown"}),
                             "direction": frozenset({"added", "changed", "removed"})},
    "pipeline.cdc": {"about": None},
}


# Every kind of change the diff reports; each has at least one rule (tested), and a rule
# naming a kind that is not here is refused when the rules load.
CHANGE_KINDS = frozenset(FACTS)


def facts_of(kind: str) -> Facts:
    """The facts a change of `kind` may carry, with their values (None: free text)."""
    return {**FACTS[kind], **PIPELINE_FACTS}


# Changes about an operator or source being there at all: their verdict does not depend on
# the (possibly unresolved) details of what was added or removed.
STRUCTURAL = {
    "source.added", "source.removed", "source.reordered", "stateful.added", "stateful.removed",
    "stateful.replaced", "agg.method", "dedup.kind", "state.api", "query.added",
    "query.removed", "pipeline.flow_renamed", "pipeline.flows_replaced",
    "pipeline.table_renamed", "pipeline.flow_added", "pipeline.flow_removed", "query.refused",
}
# What a deliberate reset (a new checkpoint with explicit starting positions) leaves to judge:
# the sink the new query writes into is the same table, topic or folder as before.
STILL_MATTERS_AFTER_RESET = frozenset({
    "query.checkpoint", "unresolved", "sink.format", "sink.path", "sink.topic", "sink.table",
    "sink.foreach_code", "sink.foreach_writes", "sink.foreach_data", "sink.option",
    "sink.partition_by", "output_mode",
    "projection.columns", "query.refused",
})


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
    # The calls each version's place was made through (`diff._through`: an operator's,
    # `Query.made_through`, else its query's start, `Sink.called_from`).
    old_calls: tuple[Loc, ...] = ()
    new_calls: tuple[Loc, ...] = ()


class Code(str):
    """Text rendered from the job's code (keys, aggregates, conditions): shown as is, where
    a plain string value (a topic, a path) is shown quoted. `known` is False when a part of
    what it shows could not be resolved (the diff then asks instead of judging)."""

    known: bool = True
