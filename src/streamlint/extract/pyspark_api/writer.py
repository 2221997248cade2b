"""PySpark's DataStreamWriter: `df.writeStream....start()` as the query it starts, with the
code of a `foreachBatch` function as its fingerprint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.code_text import code_text
from streamlint.extract.columns import option_key, option_value, plain
from streamlint.extract.frames import flatten
from streamlint.extract.positions import is_node
from streamlint.extract.pyspark_api.batch_writes import batch_writes
from streamlint.extract.pyspark_api.grouped import function_label
from streamlint.extract.pyspark_api.helper_writes import imported_writes
from streamlint.extract.spark_values import Plan, StartedQuery, Writer
from streamlint.extract.symbolic import digest
from streamlint.extract.values import Alternatives, Function, Instance, Lambda, Partial
from streamlint.model import (
    BranchWriter,
    ForeachCode,
    Loc,
    Template,
    Unknown,
    same_dataframe_settings,
)
from streamlint.model.records import replace
from streamlint.model.secrets import mask_options

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# A writer's methods return it configured; it is followed through one branch of a run-time
# choice, with a note on its DataFrame that the other may run instead.
registry.builder(Writer)


def _note(writer: Writer, note: tuple[str, Loc]) -> Writer:
    return replace(writer, plan=replace(writer.plan, unresolved=(*writer.plan.unresolved, note)))


# What a writer's branch may set differently for the same DataFrame, by label.
_SETTINGS = (("format", "format"), ("output mode", "output_mode"), ("trigger", "trigger"),
             ("query name", "query_name"), ("partition columns", "partition_by"))


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return isinstance(value, str | int | float | bool | Unknown | Template) or value is None


def _differences(chosen: Writer, other: Writer) -> tuple[tuple[str, Any], ...] | None:
    """Where `other` writes the same DataFrame differently from `chosen`: the settings it
    gives another value (with its value), or None when the DataFrames are not one and the
    same, or a difference is not plain data (a foreach function)."""
    if other.foreach != chosen.foreach:
        return None
    found = _choices_within(chosen.plan, other.plan)
    if found is None:
        return None
    for label, field in _SETTINGS:
        value = getattr(other, field)
        if value != getattr(chosen, field):
            found.append((label, value))
    mine, theirs = dict(_options(chosen)), dict(_options(other))
    for key in sorted(set(mine) | set(theirs), key=str):
        if not isinstance(key, str):
            return None
        if mine.get(key, _ABSENT) != theirs.get(key, _ABSENT):
            label = "table name" if key == "__table__" else f"option `{key}`"
            found.append((label, theirs.get(key, _ABSENT)))
    return tuple(found) if all(_plain(v) for _, v in found) else None


_ABSENT = "(not set)"


def _choices_within(chosen: Plan, other: Plan) -> list[tuple[str, Any]] | None:
    """The same DataFrame, but for the notes of choices made within the other branch among
    writers of it (a nested `if`): their settings count as the other's too, and their notes'
    text as a difference. None when the DataFrames differ otherwise."""
    if other == chosen:
        return []
    mine, theirs = chosen.unresolved, other.unresolved
    if replace(other, unresolved=mine) != chosen or theirs[:len(mine)] != mine:
        return None
    found: list[tuple[str, Any]] = []
    for text, _ in theirs[len(mine):]:
        settings = same_dataframe_settings(text)
        if settings is None:
            return None
        found.extend((label, None) for label in sorted(settings))
        found.append(("a choice within", text))
    return found


def _options(writer: Writer) -> list[tuple[Any, Any]]:
    """Spark's option names are case-insensitive; the last setting of one wins."""
    return [(k.lower() if isinstance(k, str) else k, v) for k, v in writer.options]


def branch_writer(writer: Writer) -> BranchWriter:
    """What the writer has set so far, as plain data a fork note carries (model.Fork)."""
    return BranchWriter(
        format=plain(writer.format),
        options=mask_options([(str(k), option_value(v)) for k, v in writer.options]),
        output_mode=plain(writer.output_mode), trigger=(writer.trigger[0],
                                                        plain(writer.trigger[1])),
        query_name=plain(writer.query_name), partition_by=plain(tuple(writer.partition_by)),
        foreach=_function_code(writer))


def _function_code(writer: Writer) -> str | None:
    """The code of the writer's batch function (its text, without comments), or None."""
    if writer.foreach is None:
        return None
    function = writer.foreach[1]
    node = getattr(getattr(function, "cls", function), "node", None)
    return code_text(node) if is_node(node) else digest(function)


# A writer's digest names its batch function's code too: a branch not read whose function
# changed is a changed branch.
registry.followed(Writer, _note, lambda value: (
    value.plan.sources, value.plan.operators, value.format, value.options, value.output_mode,
    value.trigger, _function_code(value)), _differences,
    lambda value: (
    value.plan.sources, value.plan.operators, value.plan.columns, value.plan.unresolved,
    branch_writer(value)))


def new_writer(interp: Interpreter, plan: Plan, node: cst.CSTNode) -> Writer:
    loc = interp.loc(node)
    interp.effects.writers.setdefault(loc, interp.code(node))
    return Writer(plan, loc)


@registry.method(Writer)
def writer_method(interp: Interpreter, writer: Writer, name: str, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    return writer_call(interp, writer, name, args, kwargs, node, interp.loc(node))


@registry.method(StartedQuery)
def started_method(interp: Interpreter, query: StartedQuery, name: str, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    certain = not interp.effects.uncertain
    if certain and (name == "stop" or (name == "awaitTermination" and not args and not kwargs)):
        # The query is over before the code goes on: a later start on its checkpoint is a
        # restart of it, not a second query running at once (extract/removals.py). Not so
        # after awaitTermination(timeout), which returns with the query still running.
        interp.effects.ended.setdefault(query.index, len(interp.effects.queries))
    return None


def writer_call(  # noqa: C901 - one branch per DataStreamWriter method
    interp: Interpreter, writer: Writer, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Any:
    if name == "format":
        return writer.copy(format=args[0] if args else kwargs.get("source"))
    if name == "option":
        key = option_key(args[0] if args else kwargs.get("key"))
        value = args[1] if len(args) > 1 else kwargs.get("value")
        changes: dict[str, Any] = {"options": (*writer.options, (key, value)),
                                   "option_locs": (*writer.option_locs, (str(key).lower(), loc))}
        if isinstance(key, str) and key.lower() == "checkpointlocation":
            changes["checkpoint_loc"] = loc
        return writer.copy(**changes)
    if name == "options":
        items = list(kwargs.items())
        if args and isinstance(args[0], dict):
            items = list(args[0].items()) + items
        changes = {"options": (*writer.options, *items), "option_locs": (
            *writer.option_locs, *((str(k).lower(), loc) for k, _ in items))}
        if any(str(k).lower() == "checkpointlocation" for k, _ in items):
            changes["checkpoint_loc"] = loc
        return writer.copy(**changes)
    if name == "outputMode":
        return writer.copy(output_mode=args[0] if args else kwargs.get("outputMode"),
                           output_mode_loc=loc)
    if name == "trigger":
        return writer.copy(trigger=trigger_of(args, kwargs), trigger_loc=loc)
    if name == "queryName":
        return writer.copy(query_name=args[0] if args else kwargs.get("queryName"))
    if name in ("partitionBy", "clusterBy"):
        return writer.copy(partition_by=tuple(flatten(args)), partition_loc=loc)
    if name in ("foreach", "foreachBatch"):
        function = args[0] if args else kwargs.get("f", kwargs.get("func"))
        return writer.copy(format=name, foreach=(name, function, loc))
    if name in ("start", "toTable", "table"):
        # `table(name)` is the Databricks Runtime's spelling of `toTable(name)`.
        return start(interp, writer, "toTable" if name == "table" else name, args, kwargs,
                     node, loc)
    return writer


def trigger_of(args: list[Any], kwargs: dict[str, Any]) -> tuple[str, Any]:
    for key in ("processingTime", "once", "availableNow", "continuous", "realTime"):
        if key in kwargs:
            value = kwargs[key]
            return (key, True if key in ("once", "availableNow") and value is True else value)
    if args:
        return ("processingTime", args[0])
    return ("default", None)


def start(
    interp: Interpreter, writer: Writer, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> StartedQuery:
    options = list(writer.options)
    given = len(options)
    fmt = writer.format
    if name == "toTable":
        table = args[0] if args else kwargs.pop("tableName", None)
        options.append(("__table__", table))
        # toTable() uses format() only to create a missing table; a restart finds it made,
        # so `format("delta").toTable(t)` and `toTable(t)` write the same way.
        fmt = "table"
    elif args or "path" in kwargs:
        options.append(("path", args[0] if args else kwargs.pop("path")))
    for key in ("format", "outputMode", "queryName", "partitionBy"):
        if key in kwargs:
            value = kwargs.pop(key)
            if key == "format":
                if name != "toTable":  # toTable's format only creates a missing table
                    fmt = value
            elif key == "outputMode":
                writer = writer.copy(output_mode=value, output_mode_loc=loc)
            elif key == "queryName":
                writer = writer.copy(query_name=value)
            else:
                writer = writer.copy(partition_by=value if isinstance(value, tuple) else (value,),
                                     partition_loc=loc)
    for key, value in kwargs.items():
        options.append((key, value))
        if key.lower() == "checkpointlocation":
            writer = writer.copy(checkpoint_loc=loc)
    # What start(...) / toTable(...) gave was given at that call.
    writer = writer.copy(option_locs=(*writer.option_locs, *(
        ("table" if key == "__table__" else str(key).lower(), loc) for key, _ in options[given:])))
    writer = writer.copy(options=tuple(options), format=fmt)
    if fmt is None and writer.foreach is None and not any(
            str(key).lower() == "path" for key, _ in options):
        # Spark starts no query without a sink: its format and path were set where streamlint
        # did not see (a helper rebinding the writer, a closure), so the module's code counts.
        note = (f"the writer started here has no format and no path where streamlint read "
                f"it; they are set in code it did not follow: #{interp.module_code()}", loc)
        writer = writer.copy(plan=replace(writer.plan, unresolved=(*writer.plan.unresolved,
                                                                   note)))
    if interp.effects.failed is not None:  # a read before it raised every time (unset.py)
        writer = writer.copy(plan=replace(writer.plan, unresolved=(*writer.plan.unresolved,
                                                                   interp.effects.failed)))
    interp.effects.queries.append(writer.copy(
        conditions=tuple(interp.effects.conditions), entry=interp.effects.entry,
        called_from=tuple(interp.loc(site) for site in interp.sites)))
    return StartedQuery(len(interp.effects.queries) - 1)


def foreach_code(interp: Interpreter, foreach: tuple[str, Any, Loc]) -> ForeachCode:
    method, function, loc = foreach
    if isinstance(function, Alternatives):
        # A batch function chosen at run time: each one's code counts, and each one's writes.
        each = [foreach_code(interp, (method, option, loc)) for option in function.options]
        writes = [c.writes for c in each]
        return ForeachCode(method, " or ".join(c.function for c in each),
                           " | ".join(c.fingerprint for c in each), loc,
                           None if any(w is None for w in writes)
                           else tuple(w for ws in writes for w in ws or ()))
    if isinstance(function, Partial):
        # functools.partial(upsert, table="t"): the function's code, and what it is bound to.
        inner = foreach_code(interp, (method, function.func, loc))
        bound = ", ".join([*(digest(a) for a in function.args),
                           *(f"{k}={digest(v)}" for k, v in sorted(function.kwargs.items()))])
        return ForeachCode(method, f"partial({inner.function})",
                           f"{inner.fingerprint} with ({bound})", loc, inner.writes)
    if isinstance(function, Function):
        return _read_code(interp, method, function.node.name.value, function.node, loc)
    if isinstance(function, Instance):
        return _read_code(interp, method, function.cls.node.name.value, function.cls.node,
                          loc)
    if isinstance(function, Lambda):
        return _read_code(interp, method, "lambda", function.node, loc)
    # Code streamlint cannot read (a package's function, a value known at run time): its
    # writes are unknown, never "none".
    label = function_label(interp, function)
    return ForeachCode(method, label, label, loc, None)


def _read_code(interp: Interpreter, method: str, name: str, node: cst.CSTNode, loc: Loc
               ) -> ForeachCode:
    """The function's fingerprint, over its code and what it can reach (extract/reach.py:
    for a method, the methods of its class that can reach it; for a function nested in
    another, its own code, so that an edit of the enclosing function elsewhere, the query it
    starts, is not one of its own), and the writes read from that code and the module-level
    helpers it reaches."""
    reach = interp.reach_of(node, alone=True)
    if reach is None:  # in no module read: its own code is all there is
        return ForeachCode(method, name, code_text(node), loc, batch_writes([node]))
    helpers = [s for s in reach.statements if isinstance(s, cst.FunctionDef | cst.ClassDef)]
    others = [s for s in reach.statements if s not in helpers]
    scanned = [*reach.nodes, *helpers]
    return ForeachCode(method, name, reach.fingerprint(), loc,
                       batch_writes(scanned, others) + imported_writes(scanned, reach.modules))
