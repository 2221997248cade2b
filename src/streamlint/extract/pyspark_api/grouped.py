"""PySpark's GroupedData: aggregations, pivots and the arbitrary stateful operators
(applyInPandasWithState, transformWithState) with the state they declare.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.columns import literal, literal_expr, plain
from streamlint.extract.frames import inputs_of, made_through, resolved_key
from streamlint.extract.schemas import schema_of
from streamlint.extract.spark_values import Grouped, Plan, StateHandle
from streamlint.extract.stateful_steps import aggregate, aggregate_method, pivot_key
from streamlint.extract.symbolic import text_of
from streamlint.extract.values import Alternatives, Function, Instance, Lambda
from streamlint.model import ArbitraryState, Loc, Projection, StateVariable, Unknown, show
from streamlint.model.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


# StatefulProcessorHandle getters and how many schemas follow the state's name.
STATE_GETTERS = {"getValueState": 1, "getListState": 1, "getMapState": 2}


TIME_MODES = {"none": "None", "processingtime": "ProcessingTime", "eventtime": "EventTime"}


AGG_METHODS = ("count", "sum", "avg", "mean", "max", "min")


# A grouping is followed through one branch of a run-time choice, as its DataFrame is.
registry.followed(
    Grouped,
    lambda grouped, note: replace(grouped, plan=replace(
        grouped.plan, unresolved=(*grouped.plan.unresolved, note))),
    lambda value: (value.plan.sources, value.plan.operators, value.method, value.keys))


@registry.method(Grouped)
def grouped_method(interp: Interpreter, grouped: Grouped, name: str, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    return made_through(interp, grouped.plan,
                        grouped_call(interp, grouped, name, args, kwargs, node, interp.loc(node)))


@registry.method(StateHandle)
def state_handle_method(interp: Interpreter, handle: StateHandle, name: str, args: list[Any],
                        kwargs: dict[str, Any], node: cst.Call) -> Any:
    declare_state(handle, name, args, kwargs)
    return Unknown(interp.code(node))


def grouped_call(
    interp: Interpreter, grouped: Grouped, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Any:
    if name == "agg":
        return aggregate(grouped, args, loc)
    if name in AGG_METHODS:
        return aggregate_method(grouped, name, args, loc)
    if name == "pivot":
        pivot = args[0] if args else kwargs.get("pivot_col")
        return replace(grouped, keys=(*grouped.keys, pivot_key(pivot)))
    if name in ("applyInPandasWithState", "transformWithStateInPandas", "transformWithState",
                "flatMapGroupsWithState", "mapGroupsWithState"):
        return arbitrary_state(interp, grouped, name, args, kwargs, node, loc)
    if name in ("applyInPandas", "applyInArrow", "cogroup"):
        return grouped.plan.then(Projection(name, tuple(literal_expr(a) for a in args), None,
                                            loc), columns=None)
    return Unknown(interp.code(node))


def arbitrary_state(
    interp: Interpreter, grouped: Grouped, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Plan:
    def arg(position: int, *keywords: str) -> Any:
        if len(args) > position:
            return args[position]
        for keyword in keywords:
            if keyword in kwargs:
                return kwargs[keyword]
        return None

    function = arg(0, "func", "statefulProcessor")
    function_name = function_label(interp, function)
    if name.startswith("transformWithState"):
        output_schema = arg(1, "outputStructType")
        output_mode = arg(2, "outputMode")
        timeout = arg(3, "timeMode")
        if isinstance(timeout, str):  # Spark reads the time mode case-insensitively
            timeout = TIME_MODES.get(timeout.lower(), timeout)
        state_schema: Any = state_variables(interp, function)
        variables = (state_schema[1] if isinstance(state_schema, tuple) else None)
        state_schema = state_schema[0] if isinstance(state_schema, tuple) else state_schema
    else:
        output_schema = arg(1, "outputStructType")
        state_schema = arg(2, "stateStructType")
        output_mode = arg(3, "outputMode")
        timeout = arg(4, "timeoutConf")
        variables = None
    op = ArbitraryState(
        api=name, keys=tuple(resolved_key(grouped.plan, k) for k in grouped.keys),
        function=function_name, inputs=inputs_of(grouped.plan, list(grouped.keys)),
        output_schema=schema_of(output_schema), state_schema=schema_of(state_schema)
        if not isinstance(state_schema, tuple) else state_schema,
        # Spark parses the output mode case-insensitively: "Update" is "update".
        output_mode=output_mode.lower() if isinstance(output_mode, str) else plain(output_mode),
        timeout=plain(timeout), loc=grouped.loc, variables=variables,
    )
    return grouped.plan.then(op, columns=None, definitions=())


def function_label(interp: Interpreter, function: Any) -> str:
    if isinstance(function, Alternatives):
        return " or ".join(function_label(interp, option) for option in function.options)
    if isinstance(function, Function):
        return function.node.name.value
    if isinstance(function, Instance):
        return function.cls.node.name.value
    if isinstance(function, Lambda):
        return interp.code(function.node)
    return function.text if isinstance(function, Unknown) else literal(function)


def state_variables(interp: Interpreter, processor: Any) -> Any:
    """The state a transformWithState processor declares in `init`, in canonical text.

    `init` runs with a symbolic handle, so a schema held in a module constant or built in a
    local is read as its value: editing the constant changes the state, renaming it does not.
    """
    if isinstance(processor, Alternatives):
        # A processor chosen at run time: the state they all declare, or, where they differ,
        # the text of each one's (a change in any of them changes it).
        each = [state_variables(interp, option) for option in processor.options]
        if all(state == each[0] for state in each):
            return each[0]
        return Unknown(" or ".join(show(state[0]) if isinstance(state, tuple) else
                                   text_of(state) for state in each))
    if not isinstance(processor, Instance):
        return Unknown(function_label(interp, processor))
    init = processor.cls.methods.get("init")
    if init is None:
        return (), ()
    handle = StateHandle()
    interp.call_function(Function(init, processor.cls.env, processor), [handle], {}, init)
    return tuple(handle.declared), tuple(handle.variables)


def declare_state(handle: StateHandle, name: str, args: list[Any],
                  kwargs: dict[str, Any]) -> None:
    """Record `handle.getValueState("count", "count LONG")` as `getValueState('count', ...)`."""
    schemas = STATE_GETTERS.get(name)
    if schemas is None:
        return
    parts: list[str] = []
    for i, value in enumerate(args):
        parts.append(str(schema_of(value)) if 1 <= i <= schemas else show(plain(value)))
    for key in sorted(kwargs):
        value = kwargs[key]
        text = str(schema_of(value)) if "schema" in key.lower() else show(plain(value))
        parts.append(f"{key}={text}")
    handle.declared.append(f"{name}({', '.join(parts)})")
    ttl_keys = ("ttlDurationMs", "ttlConfig", "ttl_config")
    ttl = args[schemas + 1] if len(args) > schemas + 1 else next(
        (kwargs[k] for k in ttl_keys if k in kwargs), None)
    state_name = args[0] if args else kwargs.get("stateName")
    given = [args[i] if len(args) > i else None for i in range(1, schemas + 1)]
    for i, key in enumerate(("userKeySchema", "valueSchema") if schemas == 2 else ("schema",)):
        if given[i] is None and key in kwargs:
            given[i] = kwargs[key]
    handle.variables.append(StateVariable(
        name, plain(state_name), tuple(schema_of(v) for v in given),
        None if ttl is None else _ttl(ttl)))


def _ttl(value: Any) -> Any:
    """A TTL as milliseconds where it is a number (Python's ttlDurationMs), else its code."""
    value = plain(value)
    return value if isinstance(value, int | Unknown) else Unknown(show(value))
