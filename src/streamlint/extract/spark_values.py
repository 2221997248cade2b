"""What PySpark's objects are while a job is read: a column, a session, its builder and conf, a
reader, a DataFrame's plan, a grouping, a writer, a started query, a state handle. The generic
values of the interpreter are in `extract.values`."""

from __future__ import annotations

from typing import Any

from streamlint.model import (
    Condition,
    Loc,
    Operator,
    Source,
    StateVariable,
)
from streamlint.model.expr import Alias, Column, Definition, Expr, Star, refs, render, unaliased
from streamlint.model.records import factory, record, replace

# The reader's and writer's calls that each give settings, kept where they were given
# (`Reader.option_locs`, `schema_loc`, `Writer.partition_loc`): a finding about one of them
# is about that call's arguments, not the rest of its chain (policy/at_change.py).
SETTING_CALLS = frozenset({"option", "options", "schema", "partitionBy"})


@record
class Col:
    """A column expression as a tree (`streamlint.model.expr`): `F.col("x")`, `col("x")`,
    `"x"`, `df.x` are all `Column("x")`. `name` is the output name (an alias, or the
    column's own name), None where Spark would make one up."""

    expr: Expr
    name: str | None = None

    def aliased(self, name: object) -> Col:
        label = name if isinstance(name, str) else _label(name)
        operand = unaliased(self.expr)
        if isinstance(operand, Column) and operand.name == label:
            return Col(operand, label)  # `col("x").alias("x")` is the column itself
        return Col(Alias(operand, label), label)

    @property
    def refs(self) -> frozenset[str]:
        return refs(self.expr)

    @property
    def bare(self) -> Expr:
        """The expression without its alias: what is computed, not what it is called."""
        return unaliased(self.expr)


def _label(name: object) -> str:
    """The output name `.alias(x)` gives when x is not a string (Spark would refuse it): its
    own name or text, bounded. Never a record's repr: an alias of an alias of itself (a helper
    calling itself) would double in length at each level."""
    text = (name.name or render(name.expr)) if isinstance(name, Col) else str(name)
    if len(text) > 200:
        import hashlib

        text = f"{text[:120]}...{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    return text


def column(name: str) -> Col:
    if name == "*":
        return Col(Star(), None)
    if name.endswith(".*"):
        return Col(Star(name[:-2]), None)
    if name.startswith("`") and name.endswith("`") and len(name) > 1:
        return Col(Column(name[1:-1]), name[1:-1])
    if "." in name.strip("."):
        # `l.id` after `df.alias("l")`, or a struct's field: either way Spark names the
        # result `id`, and a qualifier that only disambiguates is dropped when comparing.
        qualifier, _, field = name.rpartition(".")
        return Col(Column(field, qualifier), field)
    return Col(Column(name), name)


@record
class Native:
    """A function streamlint itself implements (a notebook's `%run`): called with the
    interpreter, the arguments and the call's node."""

    name: str
    call: Any


@record
class Schema:
    """A schema in canonical `name:type` text (from a DDL string or a StructType)."""

    text: str


@record(frozen=False)
class Spark:
    """The SparkSession (also what `SparkSession.builder...getOrCreate()` returns)."""


@record(frozen=False)
class Builder:
    """SparkSession.builder while it is being configured."""

    pass


@record(frozen=False)
class Conf:
    """spark.conf, whose set() records session settings."""

    pass


@record(frozen=False)
class Reader:
    """A DataStreamReader (or a static DataFrameReader) being configured."""

    streaming: bool
    loc: Loc
    format: Any = None
    options: tuple[tuple[str, Any], ...] = ()
    schema: Any = None
    name: Any = None
    # Run-time choices it was chosen by (the other reader's shape noted), for its DataFrame.
    notes: tuple[tuple[str, Loc], ...] = ()
    # Where each option and the schema were given (`.option(...)`, `.schema(...)`): a finding
    # about one of them points there, not at `readStream`.
    option_locs: tuple[tuple[str, Loc], ...] = ()
    schema_loc: Loc | None = None


@record
class Plan:
    """A DataFrame: the sources it reads and the operators applied, in order."""

    sources: tuple[Source, ...]
    operators: tuple[Operator, ...]
    streaming: bool
    columns: tuple[str, ...] | None = ("*",)
    definitions: tuple[Definition, ...] = ()  # how a column was computed upstream
    unresolved: tuple[tuple[str, Loc], ...] = ()

    def then(self, op: Operator, **changes: Any) -> Plan:
        return replace(self, operators=(*self.operators, op), **changes)

    def definition(self, name: str) -> Expr | None:
        for item in reversed(self.definitions):
            if item.name == name:
                return item.expr
        return None


@record
class Grouped:
    """The result of groupBy/rollup/cube, waiting for its aggregates."""

    plan: Plan
    method: str
    keys: tuple[Col, ...]
    loc: Loc


@record(frozen=False)
class Writer:
    """A DataStreamWriter being configured; start()/toTable() records the query."""

    plan: Plan
    loc: Loc
    format: Any = None
    options: tuple[tuple[str, Any], ...] = ()
    output_mode: Any = None
    output_mode_loc: Loc | None = None
    trigger: tuple[str, Any] = ("default", None)
    trigger_loc: Loc | None = None
    query_name: Any = None
    partition_by: tuple[Any, ...] = ()
    foreach: Any = None
    checkpoint_loc: Loc | None = None
    option_locs: tuple[tuple[str, Loc], ...] = ()  # where each option was given (Sink.at)
    called_from: tuple[Loc, ...] = ()  # the calls it was started through (Sink.called_from)
    partition_loc: Loc | None = None
    conditions: tuple[Condition, ...] = ()  # the run-time conditions it was started under
    entry: str = ""  # the function nothing in the file calls it was started in (Sink.entry)

    def copy(self, **changes: Any) -> Writer:
        return replace(self, **changes)


@record(frozen=False)
class StartedQuery:
    """What start() returns: a handle whose methods do nothing here."""

    index: int


@record(frozen=False)
class StateHandle:
    """The StatefulProcessorHandle a transformWithState processor's `init` is given.

    `init` is run with this handle, so state declared through constants, locals or `self`
    attributes is read as values; `declared` lists each getXState call in canonical text.
    """

    declared: list[str] = factory(list)
    variables: list[StateVariable] = factory(list)
