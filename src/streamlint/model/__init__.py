"""The shape of a streaming query as plain, frozen data.

Extraction produces these records and nothing downstream ever sees a syntax tree, so later
front ends (SQL strings, notebooks, several modules) only have to produce the same records.
"""

from __future__ import annotations

from streamlint.model.base import UNRESOLVED_MARK as UNRESOLVED_MARK
from streamlint.model.base import BranchWriter as BranchWriter
from streamlint.model.base import External as External
from streamlint.model.base import Failure as Failure
from streamlint.model.base import Fork as Fork
from streamlint.model.base import Input as Input
from streamlint.model.base import Loc as Loc
from streamlint.model.base import Note as Note
from streamlint.model.base import Options as Options
from streamlint.model.base import Origin as Origin
from streamlint.model.base import Outcome as Outcome
from streamlint.model.base import Overridable as Overridable
from streamlint.model.base import OverridableNumber as OverridableNumber
from streamlint.model.base import Template as Template
from streamlint.model.base import Unknown as Unknown
from streamlint.model.base import Value as Value

# The values the records are made of (`streamlint.model.base`), part of the model's API.
from streamlint.model.base import branches as branches
from streamlint.model.base import code_of as code_of
from streamlint.model.base import is_known as is_known
from streamlint.model.base import keep_origins as keep_origins
from streamlint.model.base import option as option
from streamlint.model.base import origins_of as origins_of
from streamlint.model.base import placed as placed
from streamlint.model.base import same_dataframe_settings as same_dataframe_settings
from streamlint.model.base import show as show
from streamlint.model.expr import Definition as Definition
from streamlint.model.expr import Expr as Expr
from streamlint.model.operators import STATEFUL_KINDS as STATEFUL_KINDS
from streamlint.model.operators import AggCall as AggCall
from streamlint.model.operators import Aggregation as Aggregation
from streamlint.model.operators import ArbitraryState as ArbitraryState
from streamlint.model.operators import ChangeFlow as ChangeFlow
from streamlint.model.operators import Deduplication as Deduplication
from streamlint.model.operators import Expectation as Expectation
from streamlint.model.operators import Filter as Filter
from streamlint.model.operators import Operator as Operator
from streamlint.model.operators import Projection as Projection

# The steps of a query (`streamlint.model.operators`), part of the model's API.
from streamlint.model.operators import Source as Source
from streamlint.model.operators import StateVariable as StateVariable
from streamlint.model.operators import StaticJoin as StaticJoin
from streamlint.model.operators import StreamJoin as StreamJoin
from streamlint.model.operators import Union_ as Union_
from streamlint.model.operators import Watermark as Watermark
from streamlint.model.records import record

# What a step between the batch and a write does to what is written: "columns" (which are
# written: select, withColumn, drop, a field set on each record), "rows" (which rows: a
# deduplication, a join, a limit, a union), "filter" (rows kept by a predicate, as Spark's
# guide allows for a stream's own filter), "query" (the SQL query that feeds an INSERT, its
# WHERE clauses and hints left out).
WRITTEN_EFFECTS = frozenset({"columns", "rows", "filter", "query"})


@record
class WrittenStep:
    """One step between a foreachBatch function's batch and what one of its writes writes,
    read from the code (names followed to what they were last assigned before the write)."""

    effect: str  # one of WRITTEN_EFFECTS
    method: str  # the DataFrame method (`dropDuplicates`), `set item`, or `sql`
    args: tuple[str, ...]  # its arguments as the code gives them (a name's value followed)

    def __str__(self) -> str:
        return f"{self.method}({', '.join(self.args)})"


@record
class BatchWrite:
    """One write a foreach/foreachBatch function makes, as read from its code (and the
    helpers it reaches): where it writes, how, and on which condition. What is written (the
    batch filtered, joined, projected) is not part of it, as a stream's own projection is not
    part of its sink.

    `kind`: the writer's format (`delta`, `kafka`, `jdbc`, ...) for a DataFrameWriter, `merge`
    for a DeltaTable merge, the SQL statement (`merge`, `insert`, `insert overwrite`, `update`,
    `delete`, `create`, `sql`: one streamlint could not read) for SQL text, `call` for a
    client's write method (`producer.send(...)`), known by its code text (in `columns`).
    Values are as written in the code: a literal's value, a name or an f-string's `{expr}` as
    its code."""

    kind: str
    target: str | None  # table, path or topic; the receiver's code for a client's call
    mode: str | None  # append / overwrite / ...; INSERT's OVERWRITE or REPLACE USING
    condition: str | None  # a MERGE's ON, an UPDATE's or DELETE's WHERE
    columns: tuple[str, ...] = ()  # MERGE clauses with their column lists, INSERT columns,
    # partitionBy; a client's call as its code
    # What is written: the steps from the batch to the written data (the DataFrame before
    # `.write`, a merge's source, a client's argument, an INSERT's query), in order.
    data: tuple[WrittenStep, ...] = ()

    def __str__(self) -> str:
        parts = [self.kind, *([self.target] if self.target else [])]
        if self.mode:
            parts.append(f"mode {self.mode}")
        if self.condition:
            parts.append(f"{'ON' if self.kind == 'merge' else 'WHERE'} {self.condition}")
        if self.columns:
            parts.append(f"({'; '.join(self.columns)})")
        return " ".join(parts)


@record
class ForeachCode:
    """The function a foreach/foreachBatch sink calls, a fingerprint of its code and of what
    it can reach (helpers, constants, repository modules), and the writes it makes."""

    method: str  # foreach or foreachBatch
    function: str
    fingerprint: str  # the function's code with formatting and comments normalised away
    loc: Loc
    # What it writes, in the order written; None: streamlint could not read its code (a
    # function from a package, a value known only at run time), so it cannot tell.
    writes: tuple[BatchWrite, ...] | None = None


@record
class Condition:
    """A run-time condition a query is started under: `mode == "A"` (holds) or its else
    branch (not holds). `subject` is the value compared, as its code (what a run-time value
    is known by), `value` the literal it is compared with, shown."""

    subject: str
    value: str
    holds: bool


def exclusive(a: tuple[Condition, ...], b: tuple[Condition, ...]) -> bool:
    """Whether no run can meet both sets of conditions: one subject equal to two different
    values, or equal and not equal to one value (`if mode == "A"` and `if mode == "C"`)."""
    return any(x.subject == y.subject and (
        (x.holds and y.holds and x.value != y.value) or (x.value == y.value and x.holds != y.holds))
        for x in a for y in b)


# The Delta table property that lets a column be renamed or dropped in place (Databricks,
# "Rename and drop columns with Delta Lake column mapping"): a pipeline table's, as a sink
# option of its flows.
COLUMN_MAPPING = "delta.columnMapping.mode"


@record
class Sink:
    """Where and how a query writes: format, target, mode, trigger, checkpoint."""

    format: Value
    options: Options
    output_mode: Value
    trigger: tuple[str, Value]  # ("default", None), ("processingTime", "10 seconds"), ...
    query_name: Value
    partition_by: tuple[Value, ...]
    target: Value  # the path, table or topic written to
    foreach: ForeachCode | None
    checkpoint: Value
    loc: Loc
    trigger_loc: Loc | None = None
    output_mode_loc: Loc | None = None
    checkpoint_loc: Loc | None = None
    # Where each option (its key lower-cased; the last given wins; a table or path given to
    # start() or toTable() there) and the partition columns were given.
    option_locs: tuple[tuple[str, Loc], ...] = ()
    partition_loc: Loc | None = None
    # The calls the query was started through, outermost first (`main()` at the bottom of
    # the file, then `self.write(df, "silver")` in it): of several calls of one function,
    # the one that made this query.
    called_from: tuple[Loc, ...] = ()
    # How many times the run deleted the checkpoint folder before this query started (a
    # notebook's `!rm -rf chk` between two runs of a query): a later use of the same path
    # with another count starts afresh rather than sharing it.
    cleared: int = 0
    # An earlier query on this checkpoint was stopped (or awaited) before this one started:
    # this one restarts it, the two never run at once.
    restarts: bool = False
    # The run-time conditions it is started under (`if mode == "A": ...start()`): queries
    # under exclusive ones never run together.
    conditions: tuple[Condition, ...] = ()
    # The call that makes its checkpoint path differ on every run (`datetime.now()`,
    # `uuid.uuid4()`), as written; None for a path that stays put (extract/volatile.py).
    volatile: str | None = None
    # The function nothing in the file calls that started it ("" where the file's own run
    # starts it): run by a caller streamlint does not see, if at all. On a checkpoint several
    # queries share, the one a run of the file starts is paired with its like (model/identity).
    entry: str = ""

    # Two calls of one helper with the same arguments start one query (the second start
    # restarts the first): which calls started it says how the code got there, not what runs.
    __record_compare__ = tuple(name for name in __annotations__ if name != "called_from")

    def at(self, key: str) -> Loc:
        """Where an option was given (`.option(key, ...)`), else where the query starts."""
        return option(self.option_locs, key) or self.loc

    def placed(self, key: str, other: Sink) -> Loc:
        """Where an option was given, or was given with others the other version gives
        (`base.placed`), else where the query starts."""
        return placed(self.option_locs, other.option_locs, key, self.loc)


@record
class Setting:
    """A session setting (builder .config or spark.conf.set) that a restart may pin."""

    key: str
    value: Value
    loc: Loc


@record
class Query:
    """One streaming query: sources in plan order, operators in order, its sink."""

    sources: tuple[Source, ...]
    operators: tuple[Operator, ...]
    sink: Sink
    config: tuple[Setting, ...]
    unresolved: tuple[tuple[str, Loc], ...] = ()  # what could not be followed, and where
    output_columns: tuple[str, ...] | None = None  # column names reaching the sink
    inputs: tuple[Input, ...] = ()  # restart-relevant values from outside the code
    # Where each operator was applied from: (its loc, the calls the run was inside then), for
    # an operator built in a function several calls reach (`Sink.called_from` says the same
    # of the sink). Not compared: the same query built through other calls is the same.
    made_through: tuple[tuple[Loc, tuple[Loc, ...]], ...] = ()

    __record_compare__ = tuple(name for name in __annotations__ if name != "made_through")

    @property
    def stateful(self) -> tuple[Operator, ...]:
        return tuple(op for op in self.operators if op.kind in STATEFUL_KINDS)

    @property
    def label(self) -> str:
        """Its name in reports (`streamlint.model.labels`: queryName, checkpoint, target, else
        where it is written); reports make the labels of a file's queries unique."""
        from streamlint.model.labels import query_label

        return query_label(self)


@record
class Unseen:
    """Streaming code in a job that streamlint could not read as (part of) a query.

    Never dropped: every one becomes a finding a person sees (UN03), so a query streamlint
    missed can never read as "compatible". `about` says what kind of thing it is (a rule's
    `when`): "no-sink" (a streaming DataFrame that reaches no sink streamlint recognises),
    "not-run" (streaming code the interpreter never reached), "sql" (SQL it does not analyse),
    "pipeline", "module", "notebook", "broken-cell" (a notebook cell that is not valid
    Python), "never-started" (a stream writer built, never started and handed to no other
    code); `what` says it in words, naming the code.
    """

    about: str
    what: str
    loc: Loc
    # For code handed a stream it cannot follow: a digest of everything it was handed. The
    # same code handed the same values in both versions is no change ("" never matches).
    fingerprint: str = ""


@record
class JobFile:
    """A job file as read: its text (for reports), its queries, and what it could not read.

    `modules` names every module of the repository the job's code was followed into, with a
    digest of its text, so that two versions whose job file is unchanged but whose helper
    changed are still different jobs.
    """

    path: str
    text: str
    queries: tuple[Query, ...] = ()
    unseen: tuple[Unseen, ...] = ()
    modules: tuple[tuple[str, str], ...] = ()  # (path, digest of its text)
    # A pipeline's materialized views: tables whose DataFrame is batch, recomputed on every
    # update with no checkpoint (said in reports, so that "no streaming query" is not read
    # as "nothing was read").
    batch_datasets: tuple[str, ...] = ()
    # A pipeline file's API: "sdp" (Spark Declarative Pipelines, `pyspark.pipelines`), "dlt"
    # (Databricks `import dlt`), None for a job.
    pipeline_api: str | None = None
    # The repository modules followed whose text holds a `streamlint: ignore` comment, as
    # (root-relative path, path as locations show it, text): a comment in a helper accepts
    # the findings that point at its statement (streamlint/policy/suppress.py).
    commented_modules: tuple[tuple[str, str, str], ...] = ()
    # Where Python refuses to parse the file (line, 0-based column, its message): one of two
    # versions being compared, which can never start (`extract.extract_version`).
    syntax_error: tuple[int, int, str] | None = None
    # Every repository file the job's code was followed into, modules and configuration
    # files alike, as (root-relative path, path as locations show it, text): a finding
    # caused by a change there points at it (streamlint/policy/at_change.py).
    sources: tuple[tuple[str, str, str], ...] = ()
    # The files of this version's repository at the paths only the other version's code was
    # followed into, as `sources` has them (None for a text: the file is absent here): a
    # job moved into a module that existed before is compared with what that module was,
    # not taken as new whole (set by the workflow, `workflow/counterparts.py`).
    counterparts: tuple[tuple[str, str, str | None], ...] = ()
