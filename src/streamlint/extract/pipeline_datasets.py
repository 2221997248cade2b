"""The datasets a pipeline file declares, and how a flow reads one.

A decorator of `dlt` / `dp` (`Decorator`) waits for its function; applied, it makes a
`Definition` (a table, a view, a flow, an AUTO CDC flow), collected on the interpreter in a
`State`. A flow reads a dataset by name (`dlt.read_stream("x")`, `LIVE.x`): a view of this
pipeline is read through its own plan, with its expectations applied; anything else is the
table itself. `extract/pipelines.py` registers the pipeline APIs' handlers and turns the flows
into queries once the module ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamlint.extract.columns import col_sql, literal_expr, plain
from streamlint.extract.pyspark_api import make_source
from streamlint.extract.spark_values import Plan, Reader
from streamlint.extract.values import Function
from streamlint.model import Expectation, Failure, Filter, Loc, Unseen, show
from streamlint.model.expr import Literal
from streamlint.model.expr import call as expr_call
from streamlint.model.records import factory, record, replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

EXPECTATIONS = {"expect": "warn", "expect_or_drop": "drop", "expect_or_fail": "fail"}
EXPECT_ALL = {"expect_all": "warn", "expect_all_or_drop": "drop", "expect_all_or_fail": "fail"}


@record
class Decorator:
    """What `dlt.table(name=...)` or `dp.expect_or_drop("n", "c")` returns: waiting for its
    function."""

    name: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]
    loc: Loc

    def kwarg(self, key: str) -> Any:
        return dict(self.kwargs).get(key)


@record(frozen=False)
class Definition:
    """A dataset or flow the file declares."""

    kind: str  # "table" (streaming table or materialized view), "view", "flow", "cdc"
    name: Any  # the dataset's name (a view's, or a flow's target table)
    flow: Any  # the flow's name (checkpoint identity)
    function: Function | None
    expectations: list[Decorator]
    loc: Loc
    cdc: dict[str, Any] = factory(dict)
    # What the runtime calls: the function under the job's own decorators, if any.
    wrapped: Any = None
    # How a table lays out its files: `partition_cols`, `cluster_by` (a table's own flow).
    partition_cols: Any = None
    cluster_by: Any = None
    once: Any = None  # `append_flow(once=True)`: a one-time flow (a backfill)


@record(frozen=False)
class State:
    """What the pipeline phase collects on an interpreter."""

    api: str  # "dlt" or "sdp"
    definitions: list[Definition] = factory(list)
    table_expectations: dict[str, list[Decorator]] = factory(dict)
    unseen: list[Unseen] = factory(list)
    batch: list[str] = factory(list)  # the materialized views' names
    resolving: set[str] = factory(set)
    inlined: set[tuple[int, int]] = factory(set)  # reads of a view, read through its plan
    # Expectations applied by a call to a function no dataset holds yet (`id` of the
    # Function): the dataset it becomes takes them.
    pending: dict[int, list[Decorator]] = factory(dict)
    # `table_properties=` of a table or a `create_streaming_table`, by table.
    table_properties: dict[str, Any] = factory(dict)


def state(interp: Interpreter, module: str) -> State:
    if interp.ext.pipeline is None:
        interp.ext.pipeline = State("dlt" if module == "dlt" else "sdp")
    elif module == "dlt":
        interp.ext.pipeline.api = "dlt"
    return interp.ext.pipeline


def _key(name: Any) -> str:
    """A dataset name as the pipeline resolves it: `LIVE.x` is `x`, case-insensitively."""
    text = name if isinstance(name, str) else show(plain(name))
    if text.lower().startswith("live."):
        text = text[5:]
    return text.lower()


def read_dataset(interp: Interpreter, name: Any, streaming: bool, loc: Loc) -> Plan:
    """`dlt.read_stream("x")`, `spark.readStream.table("LIVE.x")`: a view of this pipeline is
    read through its own plan; anything else is the table itself."""
    view = _view(interp, name)
    if view is not None:
        plan = view_plan(interp, view)
        if plan is not None:
            interp.ext.pipeline.inlined.add((loc.line, loc.column))  # type: ignore[union-attr]
            if streaming and not plan.streaming:
                return _refused(view, plan, loc)
            return plan if streaming else _batch(plan)
    table = name[5:] if isinstance(name, str) and name.lower().startswith("live.") else name
    source = make_source(Reader(streaming, loc), "table", [("table", table)])
    return Plan((source,), (), streaming, columns=None)


def _view(interp: Interpreter, name: Any) -> Definition | None:
    if interp.ext.pipeline is None or not isinstance(name, str):
        return None
    return next((d for d in interp.ext.pipeline.definitions
                 if d.kind == "view" and isinstance(d.name, str) and _key(d.name) == _key(name)),
                None)


def view_plan(interp: Interpreter, view: Definition) -> Plan | None:
    assert interp.ext.pipeline is not None
    key = _key(view.name)
    if key in interp.ext.pipeline.resolving:  # a view that reads itself: not followed twice
        return None
    interp.ext.pipeline.resolving.add(key)
    try:
        value = _call(interp, view)
    finally:
        interp.ext.pipeline.resolving.discard(key)
    if not isinstance(value, Plan):
        return None
    return _expect(interp, value, view.expectations)


def _refused(view: Definition, plan: Plan, loc: Loc) -> Plan:
    """`dlt.read_stream("v")` of a view whose query is batch: Spark refuses a stream of a view
    of a batch plan ("v is not a temp view of streaming logical plan", AnalysisException,
    tests/test_spark_stream_facts.py), so the flow reading it never starts."""
    said = (f"`{view.name}` is a view of a batch query: Spark refuses to read it as a stream "
            f"(AnalysisException: not a temp view of streaming logical plan)")
    failure = Failure("DataStreamReader", "table", "AnalysisException", said)
    # The flow is a streaming one (a streaming table's), whose start fails.
    sources = tuple(replace(s, streaming=True) for s in plan.sources)
    return replace(plan, sources=sources, streaming=True,
                   unresolved=(*plan.unresolved, (failure, loc)))


def _batch(plan: Plan) -> Plan:
    sources = tuple(replace(s, streaming=False) for s in plan.sources)
    return replace(plan, sources=sources, streaming=False)


def _call(interp: Interpreter, definition: Definition) -> Any:
    assert definition.function is not None
    node = definition.function.node
    if definition.wrapped is not None:
        return interp.call(definition.wrapped, [], {}, node)
    return interp.call_function(definition.function, [], {}, node)


def _expect(interp: Interpreter, plan: Plan, decorators: list[Decorator]) -> Plan:
    """Expectations in declaration order: `expect_or_drop` filters rows, the others keep them."""
    for decorator in decorators:
        action = EXPECTATIONS.get(decorator.name) or EXPECT_ALL.get(decorator.name)
        if decorator.name in EXPECT_ALL:
            rules = decorator.args[0] if decorator.args else decorator.kwarg("expectations")
            if not isinstance(rules, dict):
                text = show(plain(rules))
                plan = plan.then(Expectation(f"{decorator.name}({text})", literal_expr(rules),
                                             "unknown", decorator.loc))
                continue
            items = list(rules.items())
        else:
            items = [(decorator.args[0] if decorator.args else decorator.kwarg("name"),
                      decorator.args[1] if len(decorator.args) > 1
                      else decorator.kwarg("constraint"))]
        for name, condition in items:
            expr = col_sql(condition).expr if isinstance(condition, str) else literal_expr(
                condition)
            label = name if isinstance(name, str) else show(plain(name))
            if action == "drop":
                plan = plan.then(Filter(expr_call("expect_or_drop", Literal(label), expr),
                                        decorator.loc))
            else:
                plan = plan.then(Expectation(label, expr, str(action), decorator.loc))
    return plan
