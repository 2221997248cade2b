"""Spark Declarative Pipelines (`from pyspark import pipelines as dp`) and Databricks
Lakeflow / DLT (`import dlt`): their flows as ordinary streaming queries.

A pipeline file has no `writeStream`: the runtime calls the decorated functions. Here every
decorated function and `create_auto_cdc_flow` / `apply_changes` call is registered while the
module runs; afterwards each flow's function is called (with no arguments, as the runtime
does) and a flow whose DataFrame is streaming becomes a query whose sink is the pipeline:
format "pipeline", target the table, query name the flow, and checkpoint the synthetic
identity `pipeline flow <table>/<flow>` (Spark keeps it under
`<storage>/_checkpoints/<table>/<flow>`, so the table and the flow name are what a restart
resumes). A batch DataFrame is a materialized view: recomputed on every update, no checkpoint,
no query. Views are inlined into their readers (the datasets, and how a flow reads one:
`extract/pipeline_datasets.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.columns import as_col, plain
from streamlint.extract.frames import unresolved_plan
from streamlint.extract.pipeline_datasets import (
    EXPECT_ALL,
    EXPECTATIONS,
    Decorator,
    Definition,
    State,
    _call,
    _expect,
    _key,
    read_dataset,
    state,
)
from streamlint.extract.positions import children_of
from streamlint.extract.spark_values import Plan, Writer
from streamlint.extract.values import Function, FunctionRef
from streamlint.model import COLUMN_MAPPING, ChangeFlow, Loc, Note, Unknown, Unseen, show
from streamlint.model.expr import render
from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

MODULES = frozenset({"dlt", "pyspark.pipelines"})
TABLES = {"table", "create_table", "materialized_view"}
VIEWS = {"view", "create_view", "temporary_view"}
STREAMING_TABLES = {"create_streaming_table", "create_streaming_live_table", "create_target_table"}
# Databricks' renames in `dlt` (the two functions of each pair have the same signature and the
# new one "replaces the previous function": docs.databricks.com/aws/en/dlt-ref/
# dlt-python-ref-apply-changes and dlt-python-ref-apply-changes-from-snapshot). Code moved to
# the new name does what it did, modelled or not.
FORMER_NAMES = {"apply_changes": "create_auto_cdc_flow",
                "apply_changes_from_snapshot": "create_auto_cdc_from_snapshot_flow"}
registry.former_names("dlt", FORMER_NAMES)
CDC = {"create_auto_cdc_flow"} | {old for old, new in FORMER_NAMES.items()
                                  if new == "create_auto_cdc_flow"}
DECORATORS = TABLES | VIEWS | {"append_flow"} | set(EXPECTATIONS) | set(EXPECT_ALL)
# What `from dlt import *` binds that streamlint knows the meaning of.
STAR_NAMES = (*sorted(DECORATORS | STREAMING_TABLES | CDC), "read", "read_stream",
              "create_sink")
registry.star_names(STAR_NAMES, *MODULES)
registry.modules(*MODULES)
CDC_ARGS = ("target", "source", "keys", "sequence_by")  # positional in both APIs
CDC_OTHER = ("where", "ignore_null_updates", "apply_as_deletes", "apply_as_truncates",
             "column_list", "except_column_list", "track_history_column_list",
             "track_history_except_column_list", "once")


# -- what the module calls --------------------------------------------------------------------


@registry.library(*MODULES)
def call(interp: Interpreter, func: FunctionRef, args: list[Any], kwargs: dict[str, Any],
         node: cst.Call) -> Any:
    """`dlt.<name>(...)` / `dp.<name>(...)` while the module runs."""
    pipeline = state(interp, func.module)
    loc = interp.loc(node)
    name = func.name
    if name in ("read_stream", "read"):
        table = args[0] if args else kwargs.get("name")
        return read_dataset(interp, table, name == "read_stream", loc)
    if name in DECORATORS:
        if len(args) == 1 and isinstance(args[0], Function) and not kwargs:
            return _apply(interp, Decorator(name, (), (), loc), args[0], [])
        return Decorator(name, tuple(args), tuple(kwargs.items()), loc)
    if name in STREAMING_TABLES:
        table = args[0] if args else kwargs.get("name")
        for key in EXPECT_ALL:
            if key in kwargs:
                pipeline.table_expectations.setdefault(_key(table), []).append(
                    Decorator(key, (kwargs[key],), (), loc))
        if "table_properties" in kwargs:
            pipeline.table_properties[_key(table)] = kwargs["table_properties"]
        return None
    if name in CDC:
        values = dict(zip(CDC_ARGS, args, strict=False)) | kwargs
        flow = values.get("name", values.get("flow_name")) or values.get("target")
        pipeline.definitions.append(Definition("cdc", values.get("target"), flow, None, [],
                                               loc, values))
        return None
    if name == "create_sink":
        return None  # a sink is a flow's target; the flows say what reaches it
    # What it was handed is what it can do: the same call with the same values in both
    # versions is no change, wherever else the file changed.
    pipeline.unseen.append(Unseen("pipeline", f"`{interp.code(node)}` ({func.module}.{name} is "
                                  "not modelled by streamlint)", loc, interp.reach(node)))
    return Unknown(interp.code(node))


@registry.hook("start")
def _start(interp: Interpreter) -> None:
    interp.ext.pipeline = None  # a State once the file uses a pipeline API


@registry.hook("decorated")
def decorated(interp: Interpreter, stmt: cst.FunctionDef, function: Function,
              values: list[Any], wrapped: Any) -> None:
    """A `def` with decorators (`values`, evaluated once): register it if one of them is a
    pipeline's; the runtime calls it as the job's own decorators left it (`wrapped`)."""
    decorators: list[Decorator] = []
    for item, value in zip(stmt.decorators, values, strict=True):
        if isinstance(value, FunctionRef) and value.module in MODULES:
            state(interp, value.module)
            value = Decorator(value.name, (), (), interp.loc(item.decorator))
        if isinstance(value, Decorator):
            decorators.append(value)
    datasets = [d for d in decorators if d.name in TABLES | VIEWS | {"append_flow"}]
    if datasets:
        expectations = [d for d in decorators if d not in datasets]
        _apply(interp, datasets[-1], function, expectations)
        assert interp.ext.pipeline is not None
        if wrapped is not function:
            interp.ext.pipeline.definitions[-1].wrapped = wrapped


@record
class Registered:
    """What a dataset's decorator applied by a call returns (DLT's `_dlt_get_dataset`): a
    handle on the definition, for expectations applied over it. Nothing streams through it."""

    definition: Definition


registry.inert(Registered)


@registry.method(Decorator, "__call__")
def applied(interp: Interpreter, decorator: Decorator, name: str, args: list[Any],
            kwargs: dict[str, Any], node: cst.Call) -> Any:
    """`dlt.table(name=n)(fn)`, `dp.expect(n, c)(fn)`: a decorator applied by a call, as a
    pipeline built from a manifest registers one dataset per entry. The same as `@`."""
    if len(args) != 1 or kwargs or not isinstance(args[0], Function | Registered):
        return registry.NEXT
    target = args[0]
    pipeline = interp.ext.pipeline
    assert pipeline is not None  # the decorator's own call made the state
    datasets = TABLES | VIEWS | {"append_flow"}
    if isinstance(target, Registered):
        if decorator.name in datasets:
            return registry.NEXT  # a second dataset over the first one's handle: not modelled
        target.definition.expectations.append(decorator)  # over the dataset: it still applies
        return target
    if decorator.name in datasets:
        _apply(interp, decorator, target, pipeline.pending.pop(id(target), []))
        return Registered(pipeline.definitions[-1])
    pipeline.pending.setdefault(id(target), []).append(decorator)
    return target


def _apply(interp: Interpreter, decorator: Decorator, function: Function,
           expectations: list[Decorator]) -> None:
    assert interp.ext.pipeline is not None
    own = function.node.name.value
    loc = interp.loc(function.node)
    if decorator.name == "append_flow":
        target = decorator.kwarg("target")
        flow = decorator.kwarg("name") or own
        definition = Definition("flow", target, flow, function, expectations, loc,
                                once=decorator.kwarg("once"))
    else:
        name = decorator.kwarg("name") or own
        kind = "view" if decorator.name in VIEWS else "table"
        definition = Definition(kind, name, name, function, expectations, loc,
                                partition_cols=decorator.kwarg("partition_cols"),
                                cluster_by=decorator.kwarg("cluster_by"))
        if decorator.kwarg("table_properties") is not None:
            interp.ext.pipeline.table_properties[_key(name)] = decorator.kwarg(
                "table_properties")
    interp.ext.pipeline.definitions.append(definition)


# -- reading datasets -------------------------------------------------------------------------


@registry.table_reader
def _table(interp: Interpreter, name: Any, streaming: bool, loc: Loc) -> Any:
    """`spark.table(x)`, `spark.readStream.table(x)` in a pipeline file: its dataset."""
    if interp.ext.pipeline is None:
        return registry.NEXT
    return read_dataset(interp, name, streaming, loc)


# -- after the module ran: the flows ------------------------------------------------------------


@registry.hook("module_end")
def run(interp: Interpreter) -> None:
    """Call every table and flow function the way the pipeline runtime would."""
    pipeline = interp.ext.pipeline
    if pipeline is None:
        return
    reached: set[tuple[int, int]] = pipeline.inlined
    for definition in list(pipeline.definitions):
        if definition.kind == "view":
            continue
        if definition.kind == "cdc":
            plan: Any = _cdc_plan(interp, definition)
        else:
            plan = _call(interp, definition)
        label = f"`{definition.function.node.name.value}`" if definition.function else (
            f"the AUTO CDC flow into {show(plain(definition.name))}")
        # What can reach the definition (its function, decorators included, and what they
        # use): the same in both versions, it defines the same dataset.
        reach = interp.reach(definition.function.node) if definition.function else ""
        if plain(definition.once) is True:
            # A one-time flow (a backfill): the runtime runs its batch DataFrame once under its
            # name, on the next update (Databricks: append_flow, `once`), and never again
            # unless the table is fully refreshed. What it reads does not change
            # what the table's other flows resume; its name is what the pipeline remembers.
            if not isinstance(plan, Plan):
                plan = unresolved_plan(plan, definition.loc)
            interp.effects.queries.append(_writer(definition, plan, pipeline, once=True))
            continue
        if not isinstance(plan, Plan):
            said = ("is not one streamlint can follow, so whether it is a streaming flow is "
                    "not known")
            pipeline.unseen.append(Unseen(
                "pipeline", Note(f"the DataFrame {label} returns (`{_text(plan)}`) {said}",
                                 f"the DataFrame {label} returns (`{_shown(plan)}`) {said}"),
                definition.loc, reach))
            continue
        if not _streaming(plan) and definition.kind == "table":
            # A materialized view: recomputed on every update, no checkpoint.
            name = plain(definition.name)
            pipeline.batch.append(name if isinstance(name, str) else show(name))
            continue
        if not _streaming(plan):
            # A batch flow whose `once` is not known to be True (a value known at run time):
            # a backfill if it is, refused otherwise; not modelled, so shown.
            pipeline.unseen.append(Unseen(
                "pipeline", f"{label} is a batch flow into {show(plain(definition.name))} (a "
                "one-time backfill): streamlint does not model it; the pipeline knows it by "
                "its flow name, and a renamed one runs again", definition.loc, reach))
            continue
        if definition.kind != "cdc":
            plan = _expect(interp, plan, definition.expectations)
        plan = _expect(interp, plan, pipeline.table_expectations.get(_key(definition.name), []))
        reached.update((s.loc.line, s.loc.column) for s in plan.sources)
        interp.effects.queries.append(_writer(definition, plan, pipeline))
    _unreached_reads(interp, pipeline, reached)


def _streaming(plan: Plan) -> bool:
    """A stream-static join keeps the stream's flag; a DataFrame is streaming when one of its
    sources is (a plan with no known source keeps its own flag)."""
    if plan.sources:
        return any(s.streaming for s in plan.sources)
    return plan.streaming


def _cdc_plan(interp: Interpreter, definition: Definition) -> Plan:
    values = definition.cdc
    plan = read_dataset(interp, values.get("source"), True, definition.loc)
    keys = values.get("keys")
    keys = keys if isinstance(keys, tuple) else (keys,)
    scd = values.get("stored_as_scd_type", 1)
    options = tuple((k, Note(_text(values[k]), _shown(values[k])))
                    for k in CDC_OTHER if k in values)
    op = ChangeFlow(tuple(_name(k) for k in keys), _name(values.get("sequence_by")),
                    str(plain(scd)) if scd is not None else "1", options, definition.loc)
    return plan.then(op)


def _name(value: Any) -> str:
    col = as_col(value)
    return col.name or render(col.expr)


def _column_mapping(properties: Any) -> Any:
    """The table's `delta.columnMapping.mode` (None when the table sets none: Delta's
    default, no column mapping); an Unknown where its properties are known only at run
    time."""
    if properties is None:
        return None
    if not isinstance(properties, dict):
        return Unknown(f"delta.columnMapping.mode of {_text(properties)}",
                       shown=f"delta.columnMapping.mode of {_shown(properties)}")
    if any(not isinstance(k, str) for k in properties):
        return Unknown("delta.columnMapping.mode")
    return plain(properties.get(COLUMN_MAPPING))


def _writer(definition: Definition, plan: Plan, pipeline: State, once: bool = False) -> Writer:
    table, flow = plain(definition.name), plain(definition.flow)
    if isinstance(table, str) and isinstance(flow, str):
        checkpoint: Any = f"pipeline flow {table}/{flow}"
    else:
        checkpoint = Unknown(f"pipeline flow {_text(table)}/{_text(flow)}",
                             shown=f"pipeline flow {_shown(table)}/{_shown(flow)}")
    options: tuple[tuple[str, Any], ...] = (("checkpointLocation", checkpoint),
                                            ("__table__", table))
    if definition.cluster_by is not None:  # liquid clustering: new data, new layout
        options += (("clusterBy", definition.cluster_by),)
    mapping = _column_mapping(pipeline.table_properties.get(_key(definition.name)))
    if mapping is not None:  # whether a renamed column needs a full refresh (PL14)
        options += ((COLUMN_MAPPING, mapping),)
    partitions = definition.partition_cols
    partition_by = (tuple(partitions) if isinstance(partitions, tuple | list)
                    else () if partitions is None else (partitions,))
    return Writer(plan, definition.loc, format="pipeline", options=options, query_name=flow,
                  partition_by=partition_by,
                  trigger=("once", True) if once else ("default", None))


def _unreached_reads(interp: Interpreter, pipeline: State, reached: set[tuple[int, int]]) -> None:
    """A streaming read in a table or flow function that no flow's plan contains."""
    for definition in pipeline.definitions:
        if definition.function is None or definition.kind == "view":
            continue
        for node in _stream_reads(definition.function.node):
            loc = interp.loc(node)
            if (loc.line, loc.column) not in reached:
                function = definition.function.node.name.value
                pipeline.unseen.append(Unseen(
                    "pipeline", f"a streaming DataFrame read in `{function}` reaches no flow "
                    "streamlint found", loc, interp.reach(definition.function.node)))


def _stream_reads(function: cst.FunctionDef) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        stream_attribute = isinstance(node, cst.Attribute) and node.attr.value == "readStream"
        stream_call = isinstance(node, cst.Call) and (
            (isinstance(node.func, cst.Attribute) and node.func.attr.value == "read_stream")
            or (isinstance(node.func, cst.Name) and node.func.value == "read_stream"))
        if stream_attribute or stream_call:
            found.append(node)
        pending.extend(children_of(node))
    return found


def _text(value: Any) -> str:
    if isinstance(value, Unknown):
        return value.text
    return show(plain(value))


def _shown(value: Any) -> str:
    """A table's or flow's name as the code writes it."""
    return str(value) if isinstance(value, Unknown) else show(plain(value))


def unseen(interp: Interpreter) -> tuple[Unseen, ...]:
    return tuple(interp.ext.pipeline.unseen) if interp.ext.pipeline is not None else ()


def batch_datasets(interp: Interpreter) -> tuple[str, ...]:
    return tuple(interp.ext.pipeline.batch) if interp.ext.pipeline is not None else ()


def api(interp: Interpreter) -> str | None:
    return interp.ext.pipeline.api if interp.ext.pipeline is not None else None
