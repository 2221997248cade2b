"""The shape of a streaming query as plain, frozen data.

Extraction produces these records and nothing downstream ever sees a syntax tree, so later
front ends (SQL strings, notebooks, several modules) only have to produce the same records.
"""

from __future__ import annotations

from typing import Any

from streamlint.model.expr import Definition, Expr
from streamlint.records import record


@record
class Loc:
    """Where an element was written: 1-based line, 0-based column, like compilers print."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column + 1}"


@record
class Origin:
    """Where a value known only at run time comes from, as data: two values of one origin are
    one value, however the code reads it (`config["topic"]`, `config.get("topic", False)`,
    `json.load(f)["topic"]`; `os.environ["TOPIC"]`, `os.getenv("TOPIC")`).

    kind "file": the key path `key` of the configuration file `name` names (as `Unknown.unread`
    says it); "environment": the environment variable `name`, no default."""

    kind: str
    name: str
    key: tuple[str | int, ...] = ()

    def child(self, key: str | int) -> Origin:
        return Origin(self.kind, self.name, (*self.key, key))


@record
class Unknown:
    """A value that static analysis cannot pin down; `text` is the code that produces it.

    Two unknowns with the same text compare equal: the same expression in both versions is the
    same value, so only a changed expression becomes a finding. Two with the same `origin`
    compare equal whatever their code: the same key of the same file is the same value.
    """

    text: str
    # A value read from a file streamlint could not read (its path unknown, or absent from the
    # repository): what was to be read. Two such values are the same code, never the same
    # value: the file may differ between the versions (`Input`, kind "unread").
    unread: str = ""
    # The code as the user wrote it, where `text` also names what the value depends on (the
    # values an expression reads, a digest of a list): reports show this, never compare it.
    shown: str = ""
    # A path made from `__file__`: where it lies on the cluster is not known, but its place in
    # the job's repository is (root-relative, POSIX; "." for the root). A run of the job
    # (`--confirm`) finds its query by that place (model/paths.py `query_path`).
    repository: str = ""
    origin: Origin | None = None
    # A dict known only at run time whose keys the code limits to these (`{OPTS[k]: v for k,
    # v in args.items() if k in OPTS}` holds only OPTS's values); None: any key. Its text
    # already names what limits them (the known dict it reads), so it is not compared.
    keys: tuple[str, ...] | None = None

    __record_compare__ = ("identity", "unread")

    @property
    def identity(self) -> object:
        """What it is compared by: its origin where known, else its code."""
        return self.origin if self.origin is not None else self.text

    def __str__(self) -> str:
        return self.shown or self.text


class Note(str):
    """A note on code streamlint could not read, whose text also names what the code depends
    on (the values it reads, a digest of a branch not read): compared as that text, so a
    change there is a changed note; shown to people as `shown`, the code as written."""

    shown: str

    def __new__(cls, text: str, shown: str = "") -> Note:
        note = super().__new__(cls, text)
        note.shown = shown or text
        return note

    @property
    def text(self) -> str:
        """The text it is compared as (`str()` and f-strings give `shown`)."""
        return str.__str__(self)

    def __str__(self) -> str:
        return self.shown

    def __format__(self, spec: str) -> str:
        return format(self.shown, spec)


class Outcome(str):
    """A run-time condition the run itself decides (whether an exception is raised), never a
    deployment's setting: no deployment keeps to one of its branches (diff/forks.py)."""


class Fork(Note):
    """A note that a run-time condition chooses the DataFrame and streamlint read one branch.

    It is compared as its text (which names the condition and a digest of the branch not
    read, so a change there makes the note differ) and shown as a `Note` is. It also carries
    that branch as data (`other`: its sources, operators, output columns, notes, and what a
    writer of it has set by the fork, a `BranchWriter`, or () for a DataFrame), so the diff
    compares the branch not read with its old self rather than asking about every edit
    there: a filter changed on a branch of a stateless query is no question. `other` is None
    when the branch is not a DataFrame it can compare.
    """

    condition: str
    which: str
    other: tuple[Any, ...] | None
    chosen: tuple[Any, ...] | None  # the branch read, at the fork, in the same form
    # Where the other branches write the very DataFrame of the one read: the settings they
    # set differently ("format", "option `path`"); None otherwise (diff/forks.py).
    settings: frozenset[str] | None

    def __new__(cls, text: str, condition: str, which: str, other: tuple[Any, ...] | None,
                chosen: tuple[Any, ...] | None = None,
                settings: frozenset[str] | None = None, shown: str = "") -> Fork:
        made = super().__new__(cls, text, shown)
        made.condition, made.which, made.other, made.chosen = condition, which, other, chosen
        made.settings = settings
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Fork, (self.text, self.condition, self.which, self.other, self.chosen,
                       self.settings, self.shown))


@record
class BranchWriter:
    """What a writer has set on one branch of a run-time fork, by the fork: values as Spark
    stores them (`plain`, credentials masked), options in the order set (a later one wins),
    `checkpointLocation` among them; None where a setting is not set. `foreach`: the batch
    function's fingerprint (a digest: its code is compared only where it is the query's)."""

    format: Any
    options: tuple[tuple[str, Any], ...]
    output_mode: Any
    trigger: tuple[str, Any]
    query_name: Any
    partition_by: tuple[Any, ...]
    foreach: str | None


class Failure(Note):
    """A call or read that raises every time it runs, on the way to a query's start:
    `df.orderby(...)`, a name no supported pyspark has on a DataFrame (AttributeError, or a
    Column called), or `self.name` that nothing sets on the job's own object. The query can
    never start. Compared as its text, like a `Note`; what fails is data: the receiver's
    class, the name called or read and the error it raises."""

    receiver: str
    method: str
    error: str

    def __new__(cls, receiver: str, method: str, error: str, said: str = "") -> Failure:
        # `said`: the failure in other words than a missing pyspark method's (an attribute of
        # the job's own object that nothing sets).
        made = super().__new__(cls, said or f"`{receiver}` has no method `{method}` in any "
                                            f"supported pyspark: the call raises {error}")
        made.receiver, made.method, made.error = receiver, method, error
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Failure, (self.receiver, self.method, self.error, str(self)))


class Overridable(str):
    """A default a deployment may override: `os.environ.get("X", "d")`, a widget's default,
    an argparse argument's default. It reads as its text everywhere (the value when nothing
    overrides it); `origins` names where it comes from, each with its default, for the diff
    (`Input`). String methods return plain text: only building a string keeps it one."""

    origins: tuple[tuple[str, str], ...]

    def __new__(cls, text: str, origins: tuple[tuple[str, str], ...] = ()) -> Overridable:
        made = super().__new__(cls, text)
        made.origins = tuple(origins)
        return made

    def __reduce__(self) -> tuple[type, tuple[str, tuple[tuple[str, str], ...]]]:
        return (Overridable, (str(self), self.origins))


class OverridableNumber(int):
    """A number computed from an `Overridable` (a window's length from its default text)."""

    origins: tuple[tuple[str, str], ...]

    def __new__(cls, value: int, origins: tuple[tuple[str, str], ...] = ()
                ) -> OverridableNumber:
        made = super().__new__(cls, value)
        made.origins = tuple(origins)
        return made

    def __reduce__(self) -> tuple[type, tuple[int, tuple[tuple[str, str], ...]]]:
        return (OverridableNumber, (int(self), self.origins))


def origins_of(value: object) -> tuple[tuple[str, str], ...]:
    """Where a deployment may override a value (none for a value of the code itself)."""
    found = getattr(value, "origins", ())
    return found if isinstance(value, Overridable | OverridableNumber) else ()


def keep_origins(text: str, pieces: list[object]) -> str:
    """Text made from deployment defaults (joined, normalised) is itself one."""
    found = tuple(dict.fromkeys(o for p in pieces for o in origins_of(p)))
    return Overridable(text, found) if found else text


@record
class Input:
    """A restart-relevant fact of a query (its checkpoint, a topic or path it reads, a grouping
    key, a window) that takes its value from outside the job's code.

    kind "override": `origin` (an environment variable, a widget, an argument) gives the value
    unless the deployment sets another; `default` is the one the code gives. kind "unread": a
    file streamlint could not read gives it (`origin` names the file); its value is unknown."""

    kind: str
    origin: str
    default: str | None
    fact: str  # in words: "the kafka source option `subscribe`", "checkpointLocation"
    loc: Loc
    # Which fact, for the diff: "checkpoint", "source", "window", "grouping", "dedup", "join".
    about: str = ""


@record
class Template:
    """A string whose parts are partly known: `f"{root}/orders"`, `root + "/orders"`,
    `os.path.join(root, "orders")` are ("", Unknown("root"), "/orders"). Two templates whose
    unresolved parts are the same code but whose known parts differ are certainly different
    values (a checkpoint moved from `{root}/orders` to `{root}/orders_v2`)."""

    parts: tuple[str | Unknown, ...]

    def __str__(self) -> str:
        return "".join(p if isinstance(p, str) else "{" + p.text + "}" for p in self.parts)


Value = str | int | float | bool | None | Unknown | Template | tuple


# How an unresolved part is written inside an expression's text: `window(ts, ⟨?WINDOW⟩)`.
# The brackets are ones no job writes in its strings (a `"<?xml"` literal must stay known).
UNRESOLVED_MARK = "\u27e8?"


def is_known(value: object) -> bool:
    """True when a value (and everything inside it) was resolved statically."""
    if isinstance(value, Unknown | Template):
        return False
    if isinstance(value, str):
        return UNRESOLVED_MARK not in value
    if isinstance(value, tuple):
        return all(is_known(v) for v in value)
    return True


def code_of(value: Unknown | Template) -> str:
    """A value known only at run time as the code writes it: `checkpoint_path`,
    `{bookstore.checkpoint_path}/orders_silver` (an f-string's parts in braces)."""
    if isinstance(value, Unknown):
        return str(value)
    return "".join(p if isinstance(p, str) else "{" + str(p) + "}" for p in value.parts)


def show(value: object) -> str:
    """Render a value the way the user wrote it."""
    if isinstance(value, str):
        return repr(str(value))  # a note: its words, not what names it
    if isinstance(value, tuple):
        return "(" + ", ".join(show(v) for v in value) + ")"
    if isinstance(value, Unknown | Template):
        return code_of(value)
    return str(value)


Options = tuple[tuple[str, Value], ...]


def option(options: Options, key: str) -> Value:
    """Look an option up case-insensitively, as Spark does."""
    for k, v in options:
        if k.lower() == key.lower():
            return v
    return None


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
    # the findings that point at its statement (streamlint/suppress.py).
    commented_modules: tuple[tuple[str, str, str], ...] = ()
