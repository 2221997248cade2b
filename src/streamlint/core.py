"""The leaf core the diff, the rules and the reports share: what a change is, its kinds,
shown code, and the Spark version the rules judge for by default. Imports nothing of
streamlint but the model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamlint.model import Loc
from streamlint.records import factory, record

DEFAULT_SPARK_VERSION = "3.5"  # the rules' default (streamlint.rules re-exports it)

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


class Code(str):
    """Text rendered from the job's code (keys, aggregates, conditions): shown as is, where
    a plain string value (a topic, a path) is shown quoted. `known` is False when a part of
    what it shows could not be resolved (the diff then asks instead of judging)."""

    known: bool = True
