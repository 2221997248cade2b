"""The steps of a query as records: its sources, the operators in plan order (projections,
filters, watermarks, aggregations, deduplications, joins, arbitrary state, unions, a
pipeline's expectations and change flows), and which of them keep state."""

from __future__ import annotations

from streamlint.model.base import Loc, Options, Value, option, placed
from streamlint.model.expr import Definition, Expr
from streamlint.model.records import record, replace


@record
class Source:
    """One `spark.readStream` (or a static `spark.read` on the other side of a join)."""

    format: Value
    identity: Options  # what is read: topics, paths, table names
    rate_limits: Options
    options: Options  # everything else: startingOffsets, failOnDataLoss, ...
    schema: Value
    name: Value  # DataStreamReader.name() (Spark 4.2+ source evolution)
    loc: Loc
    streaming: bool = True
    # Where each option (its key lower-cased; the last given wins) and the schema were given:
    # a finding about one of them points there.
    option_locs: tuple[tuple[str, Loc], ...] = ()
    schema_loc: Loc | None = None

    def unplaced(self, nowhere: Loc) -> Source:
        """The source with every place it keeps set to `nowhere`: what it reads and how."""
        return replace(self, loc=nowhere, option_locs=(), schema_loc=None)

    def at(self, key: str) -> Loc:
        """Where an option was given (`.option(key, ...)`), else where the source is read."""
        return option(self.option_locs, key) or self.loc

    def placed(self, key: str, other: Source) -> Loc:
        """Where an option was given, or was given with others the other version gives
        (`base.placed`), else where the source is read."""
        return placed(self.option_locs, other.option_locs, key, self.loc)


@record
class Projection:
    """A map-like step (select, withColumn, drop, ...) and the columns it leaves."""

    method: str
    exprs: tuple[Expr, ...]
    columns: tuple[str, ...] | None  # output columns after this step ("*" = the input's)
    loc: Loc
    kind: str = "projection"


@record
class Filter:
    """A filter or where: decides which rows go on, keeps no state."""

    condition: Expr
    loc: Loc
    kind: str = "filter"


@record
class Watermark:
    """withWatermark(column, delay): drives eviction of the state downstream."""

    column: str
    delay: Value
    loc: Loc
    kind: str = "watermark"


@record
class AggCall:
    """One aggregate function: its name, its inputs, its alias."""

    function: str
    args: tuple[Expr, ...]
    alias: str | None
    distinct: bool = False


@record
class Aggregation:
    """groupBy/rollup/cube + aggregates: keys are the state key, buffers its value."""

    method: str  # groupBy, rollup, cube
    keys: tuple[Expr, ...]
    aggregates: tuple[AggCall, ...]
    inputs: tuple[Definition, ...]  # how each column the operator reads was computed upstream
    loc: Loc
    kind: str = "aggregation"


@record
class Deduplication:
    """dropDuplicates(WithinWatermark): one state row per key."""

    method: str
    keys: tuple[str, ...] | None  # None: every column
    within_watermark: bool
    inputs: tuple[Definition, ...]
    loc: Loc
    kind: str = "deduplication"


@record
class StreamJoin:
    """A stream-stream join: both sides buffered in state, keyed by the equi-keys."""

    how: Value
    keys: tuple[str, ...]  # join(other, on=[names]): the columns both sides share
    condition: Expr | None  # join(other, on=condition), equi-pairs and range parts together
    inputs: tuple[Definition, ...]
    loc: Loc
    kind: str = "join"
    # The columns of each side that reach the join: each side's state keeps these rows
    # (its value schema); None where a side's columns are not known.
    left_columns: tuple[str, ...] | None = None
    right_columns: tuple[str, ...] | None = None


@record
class StaticJoin:
    """A stream-static join keeps no state: it is a map-like operator."""

    how: Value
    on: tuple[Expr, ...]  # the `on` names as columns, or the one condition
    loc: Loc
    kind: str = "static_join"


@record
class StateVariable:
    """One state variable a transformWithState processor declares in `init`."""

    getter: str  # getValueState, getListState, getMapState
    name: Value
    schemas: tuple[Value, ...]  # canonical schema text: the value's (a map's key's first)
    ttl: Value  # ttlDurationMs (TTLConfig in Scala); None when the state never expires


@record
class ArbitraryState:
    """applyInPandasWithState / transformWithState: user-defined state per key."""

    api: str  # applyInPandasWithState, transformWithStateInPandas, ...
    keys: tuple[Expr, ...]
    function: str
    output_schema: Value
    state_schema: Value
    output_mode: Value
    timeout: Value
    loc: Loc
    kind: str = "arbitrary_state"
    inputs: tuple[Definition, ...] = ()  # how each grouping column was computed upstream
    # transformWithState: the variables `init` declares, as data (`state_schema` is their
    # text); None where the processor could not be read.
    variables: tuple[StateVariable, ...] | None = None


@record
class Union_:
    """union/unionByName of two streams (the trailing _ avoids typing.Union)."""

    method: str
    loc: Loc
    kind: str = "union"


@record
class Expectation:
    """A pipeline expectation that keeps every row: `expect` (metrics only) or `expect_or_fail`
    (the update fails on a violating row). `expect_or_drop` is a `Filter`."""

    name: str
    condition: Expr
    action: str  # "warn" or "fail"
    loc: Loc
    kind: str = "expectation"


@record
class ChangeFlow:
    """A pipeline's AUTO CDC flow (`create_auto_cdc_flow` / `apply_changes`): the target keeps
    one row per key (SCD 1) or its history (SCD 2), ordered by `sequence_by`."""

    keys: tuple[str, ...]
    sequence_by: str
    scd_type: str
    options: tuple[tuple[str, str], ...]  # every other argument, as written
    loc: Loc
    kind: str = "auto_cdc"


Operator = (
    Projection | Filter | Watermark | Aggregation | Deduplication | StreamJoin | StaticJoin
    | ArbitraryState | Union_ | Expectation | ChangeFlow
)

STATEFUL_KINDS = frozenset({"aggregation", "deduplication", "join", "arbitrary_state",
                            "auto_cdc"})
