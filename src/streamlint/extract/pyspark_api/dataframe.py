"""PySpark's DataFrame and Column: each method a job calls on a DataFrame becomes an operator
of its `Plan`; one streamlint does not model keeps the query and says what it did not read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.columns import (
    as_col,
    col_binary,
    col_choice,
    col_method,
    col_of,
    col_sql,
    col_unary,
    literal_expr,
    plain,
)
from streamlint.extract.frames import flatten, made_through, project, unresolved_plan
from streamlint.extract.positions import STREAMING_ATTRIBUTES
from streamlint.extract.pyspark_api.missing import note_missing
from streamlint.extract.pyspark_api.writer import new_writer
from streamlint.extract.spark_values import Col, Grouped, Plan
from streamlint.extract.stateful_steps import aggregate, dedup_keys, join
from streamlint.extract.symbolic import digest
from streamlint.extract.values import BoundMethod
from streamlint.model import Deduplication, Filter, Loc, Union_, Unknown, Watermark
from streamlint.model.expr import Unresolved, render
from streamlint.model.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

PROJECTIONS = {
    "select", "selectExpr", "withColumn", "withColumns", "withColumnRenamed",
    "withColumnsRenamed", "drop", "toDF", "withMetadata", "mapInPandas", "mapInArrow",
    "to", "transform_batch",
}


@registry.hook("start")
def _start(interp: Interpreter) -> None:
    interp.ext.views = {}  # temp views by lower-case name: what spark.sql and spark.table read


# A function nobody in the file calls still runs when it reads or writes a stream: a
# scheduler or a framework the file hands it to calls it.
registry.work_starter(lambda code: any(name in code for name in STREAMING_ATTRIBUTES))


PASS_THROUGH = {
    "repartition", "repartitionByRange", "coalesce", "cache", "persist", "hint",
    "sortWithinPartitions", "localCheckpoint", "checkpoint", "observe", "unpersist",
    "dropna", "fillna", "replace", "sample", "fill",
    "alias",  # DataFrame.alias only names the plan for qualified column references
    # A sort (allowed on a stream only after an aggregation, in complete mode) keeps no state
    # and no columns of its own: each batch's result table is sorted again.
    "orderBy", "sort",
}


DF_METHODS = PROJECTIONS | PASS_THROUGH | {
    "filter", "where", "withWatermark", "groupBy", "groupby", "rollup", "cube", "agg",
    "dropDuplicates", "drop_duplicates", "dropDuplicatesWithinWatermark", "distinct", "join",
    "union", "unionByName", "unionAll", "transform", "writeStream", "createOrReplaceTempView",
    "printSchema", "explain", "limit", "orderBy", "sort", "count", "first", "head", "show",
    "collect", "toPandas", "crossJoin", "groupingSets", "dropna", "fillna", "replace",
    "na", "foreach", "foreachPartition", "isEmpty", "take",
}


def hasattr_df(name: str) -> bool:
    return name in DF_METHODS


# Methods that a Column has too: on something unknown they are not taken as a DataFrame.
COLUMN_METHODS = {"alias", "name", "cast", "astype", "over", "isNull", "isNotNull", "isin",
                  "between", "like", "rlike", "contains", "startswith", "endswith", "desc",
                  "asc", "getItem", "getField", "when", "otherwise", "substr"}


ACTIONS = {"count", "first", "head", "take", "collect", "show", "toPandas", "isEmpty",
           "foreach", "foreachPartition", "toJSON", "toLocalIterator", "describe", "summary"}


# A DataFrame is followed through one branch of a run-time choice, noting the other.
registry.followed(Plan, lambda plan, note: replace(plan, unresolved=(*plan.unresolved, note)),
                  lambda value: (value.sources, value.operators),
                  shape=lambda value: (value.sources, value.operators, value.columns,
                                       value.unresolved, ()))
# A column's operators build expressions: `col("a") + 1`, `~df.flag`, `df.x == 1`.
registry.operators(Col, col_binary, col_unary)
# Two columns of one name chosen at run time are a column of that name.
registry.chooser(Col, col_choice)


def mark_reached(interp: Interpreter, name: str, node: cst.CSTNode) -> None:
    """Every `readStream`/`writeStream` read, whatever it is read on (failing closed:
    extract/coverage.py reports one the run never got past)."""
    if name in ("readStream", "writeStream"):
        interp.effects.reached.add(id(node))


@registry.attribute(Plan)
def dataframe_attribute(interp: Interpreter, target: Plan, name: str, node: cst.CSTNode) -> Any:
    mark_reached(interp, name, node)
    if name == "writeStream":
        return new_writer(interp, target, node)
    if name == "na":  # df.na.drop() / df.na.fill(): row-level, the DataFrame goes on
        return target
    if name in ("columns", "schema", "dtypes"):
        # Named by the DataFrame it describes, not by the variable holding it: a renamed
        # variable (`bandsDF.schema` -> `bands_df.schema`) is the same schema, another
        # DataFrame another one.
        return Unknown(f"the {name} of a DataFrame streamlint reads as #{digest(target)}",
                       shown=interp.code(node))
    if name in ("isStreaming", "sparkSession", "rdd", "stat", "write"):
        return Unknown(interp.code(node))
    if name[:1].isupper() or name.startswith("_") or not hasattr_df(name):
        note_missing(interp, target, name, node)  # a call of it raises
        return col_of(name)
    return BoundMethod(target, name)


@registry.subscript(Plan)
def dataframe_item(target: Plan, key: Any) -> Any:
    return col_of(key) if isinstance(key, str) else registry.NEXT


@registry.subscript(Col)
def column_item(target: Col, key: Any) -> Any:
    return col_method(target, "getItem", [key]) if isinstance(key, str | int) else registry.NEXT


# Column methods' keyword parameters, in pyspark's order: a keyword is read as the position
# it stands for (`between(lowerBound=..., upperBound=...)` is `between(a, b)`).
_KEYWORDS = {
    "between": ("lowerBound", "upperBound"), "cast": ("dataType",), "astype": ("dataType",),
    "getField": ("name",), "getItem": ("key",), "substr": ("startPos", "length"),
    "like": ("other",), "rlike": ("other",), "ilike": ("other",), "contains": ("other",),
    "startswith": ("other",), "endswith": ("other",), "eqNullSafe": ("other",),
    "when": ("condition", "value"), "otherwise": ("value",), "withField": ("fieldName", "col"),
}
_IGNORED = {"alias": {"metadata"}, "name": {"metadata"}, "as_": {"metadata"}}


@registry.method(Col)
def column_method(interp: Interpreter, target: Col, name: str, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    if kwargs:
        names = _KEYWORDS.get(name, ())
        rest = list(names[len(args):])
        taken = []
        for key in rest:
            if key not in kwargs:
                break
            taken.append(kwargs[key])
        known = set(rest[:len(taken)]) | _IGNORED.get(name, set())
        if set(kwargs) - known:
            # A keyword not read as its position would be a change left unseen: the whole
            # call is a value of its own code (another spelling is another value).
            return Col(Unresolved(interp.code(node)), None)
        args = [*args, *taken]
    return col_method(target, name, args)


@registry.method(Plan)
def dataframe_method(interp: Interpreter, plan: Plan, name: str, args: list[Any],
                     kwargs: dict[str, Any], node: cst.Call) -> Any:
    return made_through(interp, plan, dataframe_call(interp, plan, name, args, kwargs, node,
                                                     interp.loc(node)))


def dataframe_call(  # noqa: C901 - one branch per DataFrame method family
    interp: Interpreter, plan: Plan, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Any:
    if name in ("filter", "where"):
        condition = args[0] if args else kwargs.get("condition")
        expr = col_sql(condition).expr if isinstance(condition, str) else literal_expr(condition)
        return plan.then(Filter(expr, loc))
    if name in PROJECTIONS:
        cols = [col_sql(a) if name == "selectExpr" and isinstance(a, str) else as_col(a)
                for a in flatten(args)] if name in ("select", "selectExpr", "toDF") else []
        return project(plan, name, cols, args, kwargs, loc)
    if name == "withWatermark":
        event_time = args[0] if args else kwargs.get("eventTime")
        delay = args[1] if len(args) > 1 else kwargs.get("delayThreshold")
        time_col = as_col(event_time)
        return plan.then(Watermark(time_col.name or render(time_col.expr), plain(delay), loc))
    if name in ("groupBy", "groupby", "rollup", "cube"):
        keys = tuple(as_col(k) for k in flatten(args))
        return Grouped(plan, "groupBy" if name == "groupby" else name, keys, loc)  # aliases
    if name == "agg":
        return aggregate(Grouped(plan, "groupBy", (), loc), args, loc)  # df.agg = groupBy().agg
    if name in ("dropDuplicates", "drop_duplicates", "dropDuplicatesWithinWatermark", "distinct"):
        subset = flatten(args) if args else kwargs.get("subset")
        keys, inputs = dedup_keys(plan, subset)
        method = "dropDuplicates" if name == "drop_duplicates" else name  # pyspark's alias
        op = Deduplication(method, keys, name == "dropDuplicatesWithinWatermark", inputs, loc)
        return plan.then(op)
    if name == "join":
        other = args[0] if args else kwargs.get("other")
        on = args[1] if len(args) > 1 else kwargs.get("on")
        return join(plan, other, on, args[2] if len(args) > 2 else kwargs.get("how", "inner"),
                    loc)
    if name in ("union", "unionByName", "unionAll"):
        other = args[0] if args else kwargs.get("other")
        if not isinstance(other, Plan):
            other = unresolved_plan(other, loc)
        return Plan(
            sources=plan.sources + other.sources,
            operators=(*plan.operators, *other.operators, Union_(name, loc)),
            streaming=plan.streaming or other.streaming,
            columns=plan.columns, definitions=plan.definitions,
            unresolved=plan.unresolved + other.unresolved,
        )
    if name == "transform":
        func = args[0] if args else kwargs.get("func")
        return interp.call(func, [plan, *args[1:]], kwargs, node)
    if name in PASS_THROUGH:
        return plan
    if name in ("createOrReplaceTempView", "createTempView", "createOrReplaceGlobalTempView",
                "createGlobalTempView") and args and isinstance(args[0], str):
        interp.ext.views[args[0].lower()] = plan
        return None
    if name in ("printSchema", "explain"):
        return None
    if name in ACTIONS:
        return batch_action(interp, plan, node)
    # A DataFrame method streamlint does not model: keep the query, and say what was not read.
    note = (f"the DataFrame method `{name}(...)` is not modelled by streamlint", loc)
    return replace(plan, columns=None, unresolved=(*plan.unresolved, note))


def batch_action(interp: Interpreter, plan: Plan, node: cst.Call) -> Unknown:
    """`df.show()`, `df.count()`, ...: its result is not known here. Spark refuses a batch
    action on a streaming DataFrame ("Queries with streaming sources must be executed with
    writeStream.start()", tests/test_spark_stream_facts.py): it starts no query, so the stream
    is consumed here, not handed to code streamlint cannot follow."""
    if plan.streaming:
        interp.effects.consumed.update(s.loc for s in plan.sources if s.streaming)
    return Unknown(interp.code(node))
