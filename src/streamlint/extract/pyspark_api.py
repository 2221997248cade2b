"""What PySpark's objects do, for the interpreter: readers, DataFrames, groupings, writers.

Each method a job can call on a symbolic object is translated into the plain records of
`streamlint.model`; anything not listed keeps the DataFrame as it was (a map-like step that
cannot change what a checkpoint holds) or becomes an `Unknown`.
"""

from __future__ import annotations

import ast
import posixpath
import textwrap
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import pipelines, templates
from streamlint.extract.budget import MAX_VALUE
from streamlint.extract.columns import (
    as_col,
    col_method,
    col_of,
    col_sql,
    function_of,
    is_unknown,
    last_wins,
    literal,
    literal_expr,
    option_value,
    plain,
)
from streamlint.extract.frames import (
    aggregate,
    aggregate_method,
    dedup_keys,
    flatten,
    inputs_of,
    join,
    pivot_key,
    project,
    resolved_key,
    unresolved_plan,
)
from streamlint.extract.schema_text import TYPE_CLASSES
from streamlint.extract.schemas import (
    FIXED_COLUMNS,
    schema_add,
    schema_columns,
    schema_of,
    schema_type,
)
from streamlint.extract.values import (
    BoundMethod,
    Builder,
    Col,
    Conf,
    EnvDefault,
    Function,
    FunctionRef,
    Grouped,
    Instance,
    Lambda,
    Plan,
    Reader,
    Schema,
    Spark,
    StartedQuery,
    StateHandle,
    Writer,
    column,
)
from streamlint.model import (
    ArbitraryState,
    Deduplication,
    Filter,
    ForeachCode,
    Loc,
    Projection,
    Setting,
    Source,
    Union_,
    Unknown,
    Watermark,
    option,
    show,
)
from streamlint.model.expr import render
from streamlint.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

IDENTITY_OPTIONS = {
    # kafka.bootstrap.servers is not here: the checkpoint keeps offsets per topic and
    # partition, not per broker list, so a broker added to the list is a review (SO07).
    "subscribe", "subscribepattern", "assign", "path", "table",
    "tablename", "topic", "topics", "stream", "streamname", "eventhubs.connectionstring",
    "cloudfiles.format", "region", "queue", "subscription", "projectid", "bucket",
}
RATE_LIMIT_OPTIONS = {
    "maxoffsetspertrigger", "minoffsetspertrigger", "maxtriggerdelay", "maxfilespertrigger",
    "maxbytespertrigger", "rowspersecond", "rampuptime", "maxrecordspertrigger",
    "cloudfiles.maxfilespertrigger", "cloudfiles.maxbytespertrigger", "maxeventspertrigger",
    "maxratepertrigger", "numpartitions",
}
FILE_FORMATS = ("json", "parquet", "csv", "orc", "text", "avro", "xml", "binaryfile")

# The schema argument by position: a DDL string and the same StructType must read the same.
SCHEMA_ARGS = {"from_json": 1, "from_csv": 1}
# StatefulProcessorHandle getters and how many schemas follow the state's name.
STATE_GETTERS = {"getValueState": 1, "getListState": 1, "getMapState": 2}
TIME_MODES = {"none": "None", "processingtime": "ProcessingTime", "eventtime": "EventTime"}
AGG_METHODS = ("count", "sum", "avg", "mean", "max", "min")
# pyspark.sql.functions spellings of `count(DISTINCT x)`; `model.expr.call` folds the rest.
FUNCTION_ALIASES = {
    "countDistinct": "countdistinct", "count_distinct": "countdistinct",
    "sumDistinct": "sumdistinct", "sum_distinct": "sumdistinct",
    "approxCountDistinct": "approx_count_distinct",
}
PROJECTIONS = {
    "select", "selectExpr", "withColumn", "withColumns", "withColumnRenamed",
    "withColumnsRenamed", "drop", "toDF", "withMetadata", "mapInPandas", "mapInArrow",
    "to", "transform_batch",
}
PASS_THROUGH = {
    "repartition", "repartitionByRange", "coalesce", "cache", "persist", "hint",
    "sortWithinPartitions", "localCheckpoint", "checkpoint", "observe", "unpersist",
    "dropna", "fillna", "replace", "sample", "fill",
    "alias",  # DataFrame.alias only names the plan for qualified column references
}


# -- columns ------------------------------------------------------------------------------


def call_functions(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`pyspark.sql.functions.<name>(...)` as a column expression."""
    name = FUNCTION_ALIASES.get(name, name)
    if name == "broadcast" and args and isinstance(args[0], Plan):
        return args[0]  # a join hint: the DataFrame is the same one
    if name in ("col", "column") and args and isinstance(args[0], str):
        return column(args[0])
    if name == "expr" and args and isinstance(args[0], str):
        return col_sql(args[0])
    if name == "window" and len(args) >= 3 and args[2] == args[1] and len(args) < 4:
        args = args[:2]  # a slide equal to the duration is the tumbling window itself
    given = [*args, *kwargs.values()]
    schema_at = SCHEMA_ARGS.get(name)
    if schema_at is not None and len(given) > schema_at and isinstance(given[schema_at],
                                                                        str | Schema):
        given[schema_at] = Schema(schema_type(given[schema_at]))
    return function_of(name, given)


# -- schemas ------------------------------------------------------------------------------


def call_types(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if name in TYPE_CLASSES:
        if name == "DecimalType":
            precision = args[0] if args else kwargs.get("precision", 10)
            scale = args[1] if len(args) > 1 else kwargs.get("scale", 0)
            return Schema(f"decimal({precision},{scale})")
        return Schema(TYPE_CLASSES[name])
    if name == "StructField":
        field_name = args[0] if args else kwargs.get("name")
        data_type = args[1] if len(args) > 1 else kwargs.get("dataType")
        nullable = args[2] if len(args) > 2 else kwargs.get("nullable", True)
        if is_unknown(data_type):  # a type known only at run time: the field is not known
            return Unknown(f"StructField({literal(field_name)}, {literal(data_type)})")
        type_text = data_type.text if isinstance(data_type, Schema) else literal(data_type)
        return Schema(f"{field_name}:{type_text}" + ("" if nullable is not False else " not null"))
    if name == "StructType":
        fields = args[0] if args else kwargs.get("fields", ())
        if isinstance(fields, tuple) and all(isinstance(f, Schema) for f in fields):
            return Schema("struct<" + ",".join(f.text for f in fields) + ">")
        return Unknown(f"StructType({literal(fields)})")
    if name == "ArrayType":
        inner = args[0] if args else kwargs.get("elementType")
        if is_unknown(inner):
            return Unknown(f"ArrayType({literal(inner)})")
        return Schema(f"array<{inner.text if isinstance(inner, Schema) else literal(inner)}>")
    if name == "MapType":
        key, value = (args + [None, None])[:2]
        if is_unknown(key) or is_unknown(value):
            return Unknown(f"MapType({literal(key)}, {literal(value)})")
        return Schema(f"map<{literal(key)},{literal(value)}>")
    return Unknown(f"{name}(...)")


# -- attributes ---------------------------------------------------------------------------


def get_attribute(interp: Interpreter, target: Any, name: str, node: cst.CSTNode) -> Any:
    if isinstance(target, str | int) and name == "value":
        # A plain string has no `.value`: this is an Enum member (`Topic.ORDERS.value`), whose
        # class body assigned it the value itself.
        return target
    if isinstance(target, FunctionRef) and target.name == "GroupStateTimeout":
        return name  # PySpark's GroupStateTimeout.EventTimeTimeout is the string itself
    if name in ("readStream", "writeStream"):
        interp.effects.reached.add(id(node))
    if isinstance(target, Spark | Unknown) and name in ("readStream", "read"):
        if isinstance(target, Unknown) and name == "read" and "spark" not in target.text.lower():
            return BoundMethod(target, name)
        return Reader(streaming=name == "readStream", loc=interp.loc(node))
    if isinstance(target, Spark) and name == "conf":
        return Conf()
    if isinstance(target, Unknown) and name == "conf" and "spark" in target.text.lower():
        return Conf()
    if isinstance(target, Builder) and name == "builder":
        return target
    if isinstance(target, Plan):
        if name == "writeStream":
            return new_writer(interp, target, node)
        if name == "na":  # df.na.drop() / df.na.fill(): row-level, the DataFrame goes on
            return target
        if name in ("columns", "schema", "dtypes", "isStreaming", "sparkSession", "rdd",
                    "stat", "write"):
            return Unknown(interp.code(node))
        if name[:1].isupper() or name.startswith("_") or not hasattr_df(name):
            return col_of(name)
        return BoundMethod(target, name)
    if isinstance(target, Unknown) and name == "writeStream":
        return new_writer(interp, unresolved_plan(target, interp.loc(node)), node)
    return BoundMethod(target, name)


def new_writer(interp: Interpreter, plan: Plan, node: cst.CSTNode) -> Writer:
    loc = interp.loc(node)
    interp.effects.writers.setdefault(loc, interp.code(node))
    return Writer(plan, loc)


_DF_METHODS = PROJECTIONS | PASS_THROUGH | {
    "filter", "where", "withWatermark", "groupBy", "groupby", "rollup", "cube", "agg",
    "dropDuplicates", "drop_duplicates", "dropDuplicatesWithinWatermark", "distinct", "join",
    "union", "unionByName", "unionAll", "transform", "writeStream", "createOrReplaceTempView",
    "printSchema", "explain", "limit", "orderBy", "sort", "count", "first", "head", "show",
    "collect", "toPandas", "crossJoin", "groupingSets", "dropna", "fillna", "replace",
    "na", "foreach", "foreachPartition", "isEmpty", "take",
}


def hasattr_df(name: str) -> bool:
    return name in _DF_METHODS


# -- calls ----------------------------------------------------------------------------------


def call_library(
    interp: Interpreter, func: FunctionRef, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call,
) -> Any:
    if func.module == "pyspark.sql.functions":
        if func.name == "broadcast" and args and isinstance(args[0], Plan):
            return args[0]  # a join hint: the DataFrame itself
        return call_functions(func.name, args, kwargs)
    if func.module == "pyspark.sql.types":
        return call_types(func.name, args, kwargs)
    if func.module in pipelines.MODULES:
        return pipelines.call(interp, func, args, kwargs, node)
    if func.module in ("os", "os.environ") and func.name in ("getenv", "get"):
        default = args[1] if len(args) > 1 else kwargs.get("default")
        if isinstance(default, str):
            return EnvDefault(default)
        if default is not None:
            return default
        return Unknown(interp.code(node))
    if func.module in ("os.path", "posixpath") and func.name == "join" and args:
        if all(isinstance(a, str) for a in args):
            return posixpath.join(*args)  # jobs run on POSIX clusters, whatever the laptop is
        joined = templates.path_join(args)
        if joined is not None:
            return joined
    if func.module == "builtins":
        return call_builtin(interp, func.name, args, kwargs, node)
    if func.module == "dataclasses" and func.name == "field":
        # A dataclass field's default is what an instance built without it holds.
        if "default" in kwargs:
            return kwargs["default"]
        if "default_factory" in kwargs:
            return interp.call(kwargs["default_factory"], [], {}, node)
    if func.module == "pyspark.sql" and func.name == "SparkSession":
        return Spark()
    return Unknown(interp.code(node))


def call_builtin(
    interp: Interpreter, name: str, args: list[Any], kwargs: dict[str, Any], node: cst.Call
) -> Any:
    value = args[0] if args else None
    if name == "display":
        from streamlint.extract.platform import display

        return display(interp, args, kwargs, node)
    if name == "str" and isinstance(value, str | int | float | bool | tuple):
        return str(value)
    if name == "int" and isinstance(value, str | int | float):
        try:
            return int(value)
        except ValueError:
            pass
    if name == "dict":
        result = dict(value) if isinstance(value, dict) else {}
        result.update(kwargs)
        return result
    if name in ("list", "tuple") and isinstance(value, tuple):
        return value
    if name == "sorted" and isinstance(value, tuple):
        try:
            return tuple(sorted(value))
        except TypeError:
            pass
    if name == "len" and isinstance(value, tuple | str | dict):
        return len(value)
    # Loops over `enumerate(TOPICS)` or `zip(TOPICS, PATHS)` start one query per item.
    if name == "enumerate" and isinstance(value, tuple | dict):
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        if isinstance(start, int):
            return tuple((start + i, item) for i, item in enumerate(tuple(value)))
    if name == "zip" and args and all(isinstance(a, tuple | dict) for a in args):
        return tuple(zip(*(tuple(a) for a in args), strict=False))
    if name == "range" and 1 <= len(args) <= 3 and all(
            isinstance(a, int) and not isinstance(a, bool) for a in args):
        numbers = range(*args)
        if len(numbers) <= 1000:
            return tuple(numbers)
    return Unknown(interp.code(node))


def call_method(  # noqa: C901 - a dispatch over PySpark's object kinds
    interp: Interpreter, target: Any, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call,
) -> Any:
    loc = interp.loc(node)
    if isinstance(target, BoundMethod) and isinstance(target.target, Unknown):
        # `dbutils.widgets.get(...)` or `W = dbutils.widgets; W.get(...)`: one unknown object.
        target = Unknown(f"{target.target.text}.{target.name}")
    if isinstance(target, Unknown) and target.text.endswith("dbutils.widgets"):
        from streamlint.extract.platform import widget_call

        return widget_call(interp, name, args, kwargs, node)
    if isinstance(target, Unknown) and name in ("sql", "table") and (
            target.text.split(".")[-1].lower() in ("spark", "spark_session", "session")):
        # A notebook's predefined `spark` (or `self.spark`): the session, for what it reads.
        target = Spark()
    if isinstance(target, Builder):
        if name == "config":
            record_settings(interp, args, kwargs, loc)
        return Spark() if name in ("getOrCreate", "create") else target
    if isinstance(target, Spark):
        if name == "table" and args and isinstance(args[0], str) and (
                args[0].lower() in interp.views):  # a temp view: the DataFrame it names
            return interp.views[args[0].lower()]
        if name == "table" and args:
            if interp.pipeline is not None:
                return pipelines.read_dataset(interp, args[0], False, loc)
            return Plan((static_source("table", (("table", args[0]),), loc),), (), False)
        if name in ("getActiveSession", "active", "newSession"):
            return target
        if name == "sql" and args and isinstance(args[0], str):
            from streamlint.extract.sql.statements import run_sql  # sqlglot, only for SQL

            return run_sql(interp, args[0], node, loc)
        return Unknown(interp.code(node))
    if isinstance(target, Conf):
        if name == "set":
            record_settings(interp, args, kwargs, loc)
        if name == "get":  # a run-time value (pipeline parameters are read this way)
            return args[1] if len(args) > 1 else Unknown(interp.code(node))
        return None
    if isinstance(target, Reader):
        return reader_call(interp, target, name, args, kwargs, loc)
    if isinstance(target, Plan):
        return dataframe_call(interp, target, name, args, kwargs, node, loc)
    if isinstance(target, Grouped):
        return grouped_call(interp, target, name, args, kwargs, node, loc)
    if isinstance(target, Writer):
        return writer_call(interp, target, name, args, kwargs, node, loc)
    if isinstance(target, StartedQuery):
        return None
    if isinstance(target, Col):
        return col_method(target, name, args)
    if isinstance(target, Schema) and name == "add":
        return schema_add(target, args, kwargs)
    if isinstance(target, StateHandle):
        declare_state(target, name, args, kwargs)
        return Unknown(interp.code(node))
    if isinstance(target, dict):
        if name == "get":
            key = args[0] if args else None
            return target.get(key, args[1] if len(args) > 1 else None)
        if name == "items":
            return tuple(target.items())
        if name == "keys":
            return tuple(target)
        if name == "values":
            return tuple(target.values())
    if isinstance(target, str):
        return string_call(interp, target, name, args, kwargs, node)
    if isinstance(target, Unknown):
        if name in _DF_METHODS and name not in COLUMN_METHODS and name not in ACTIONS:
            # A DataFrame from code we cannot see: keep following the chain.
            return dataframe_call(interp, unresolved_plan(target, loc), name, args, kwargs,
                                  node, loc)
        if name in ("get", "getenv") and target.text in ("os.environ", "environ") and len(args) > 1:
            return args[1]
        if name in ("get", "getArgument") and target.text.endswith("widgets") and args and (
                isinstance(args[0], str)):
            # However a notebook reaches it (`dbutils.widgets`, `W = dbutils.widgets`), a
            # widget is one run-time value, named by its key.
            return Unknown(f"dbutils.widgets.get({args[0]!r})")
    return Unknown(interp.code(node))


def string_call(interp: Interpreter, target: str, name: str, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "format" and all(isinstance(a, str | int | float)
                                for a in (*args, *kwargs.values())):
        try:
            return target.format(*args, **kwargs)
        except (IndexError, KeyError, ValueError):
            pass
    if name == "format":
        formatted = templates.str_format(target, args, kwargs)
        if formatted is not None:
            return formatted
    if name == "join" and args and isinstance(args[0], tuple) and all(
            isinstance(a, str) for a in args[0]):
        joined = target.join(args[0])
        return joined if len(joined) <= MAX_VALUE else Unknown(interp.code(node))
    if name == "join" and args and not kwargs:
        built = templates.sep_join(target, args[0])
        if built is not None:
            return built
    if name in ("upper", "lower", "strip") and not args:
        return getattr(target, name)()
    if name == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
        replaced = target.replace(args[0], args[1])
        return replaced if len(replaced) <= MAX_VALUE else Unknown(interp.code(node))
    return Unknown(interp.code(node))


def record_settings(interp: Interpreter, args: list[Any], kwargs: dict[str, Any],
                    loc: Loc) -> None:
    pairs: list[tuple[Any, Any]] = []
    if len(args) >= 2:
        pairs.append((args[0], args[1]))
    elif "key" in kwargs:
        pairs.append((kwargs["key"], kwargs.get("value")))
    mapping = kwargs.get("map") or (args[0] if len(args) == 1 and isinstance(args[0], dict)
                                    else None)
    if isinstance(mapping, dict):
        pairs.extend(mapping.items())
    for key, value in pairs:
        if isinstance(key, str) and key.startswith("spark."):  # the rules say which matter
            interp.effects.settings.append(Setting(key, option_value(value), loc))


# -- readers ----------------------------------------------------------------------------


def static_source(fmt: str, identity: tuple, loc: Loc) -> Source:
    return Source(fmt, identity, (), (), None, None, loc, streaming=False)


def reader_call(
    interp: Interpreter, reader: Reader, name: str, args: list[Any], kwargs: dict[str, Any],
    loc: Loc,
) -> Any:
    if name == "format":
        return replace(reader, format=args[0] if args else kwargs.get("source"))
    if name == "option":
        key = args[0] if args else kwargs.get("key")
        value = args[1] if len(args) > 1 else kwargs.get("value")
        return replace(reader, options=(*reader.options, (key, value)))
    if name == "options":
        items = list(kwargs.items())
        if args and isinstance(args[0], dict):
            items = list(args[0].items()) + items
        return replace(reader, options=(*reader.options, *items))
    if name == "schema":
        return replace(reader, schema=args[0] if args else kwargs.get("schema"))
    if name == "name":
        return replace(reader, name=args[0] if args else None)
    if name in ("load", "table", *FILE_FORMATS):
        fmt = reader.format
        options = list(reader.options)
        if name in FILE_FORMATS:
            fmt = name
        if name == "table":
            if args and isinstance(args[0], str) and args[0].lower() in interp.views:
                return interp.views[args[0].lower()]  # a temp view of a DataFrame
            if interp.pipeline is not None and args:  # a pipeline's dataset, or its view
                return pipelines.read_dataset(interp, args[0], reader.streaming, reader.loc)
            # DataStreamReader.table() reads the catalog's table and ignores format():
            # `format("delta").table(t)` and `table(t)` are one source.
            fmt = "table"
            if args:
                options.append(("table", args[0]))
        elif args:
            options.append(("path", args[0]))
        for key in ("path", "format", "schema"):
            if key in kwargs:
                value = kwargs.pop(key)
                if key == "format":
                    fmt = value
                elif key == "schema":
                    reader = replace(reader, schema=value)
                else:
                    options.append(("path", value))
        options.extend(kwargs.items())
        if fmt is None:
            fmt = "parquet"
        source = make_source(reader, fmt, options)
        if source.streaming:
            interp.effects.streams.append(source)
        columns = FIXED_COLUMNS.get(str(source.format)) or schema_columns(source.schema)
        if source.format == "kafka" and str(option(source.options, "includeHeaders")) == "true":
            columns = (*columns, "headers")
        return Plan((source,), (), reader.streaming, columns=columns)
    return Unknown(f"DataStreamReader.{name}")


def make_source(reader: Reader, fmt: Any, options: list[tuple[Any, Any]]) -> Source:
    identity, limits, others = [], [], []
    for key, value in last_wins(options):
        lowered = str(key).lower()
        value = option_value(value)
        if lowered == "subscribe" and isinstance(value, str):
            # Kafka keeps offsets per topic: "a,b" and "b, a" subscribe to the same thing.
            value = ",".join(sorted(t.strip() for t in value.split(",") if t.strip()))
        bucket = (identity if lowered in IDENTITY_OPTIONS else
                  limits if lowered in RATE_LIMIT_OPTIONS else others)
        bucket.append((str(key), value))
    # format(...) given a symbolic object (a writer, a column) is a value not known here.
    fmt = fmt.lower() if isinstance(fmt, str) else plain(fmt)
    return Source(
        format=fmt, identity=tuple(sorted(identity)), rate_limits=tuple(sorted(limits)),
        options=tuple(sorted(others)), schema=schema_of(reader.schema), name=plain(reader.name),
        loc=reader.loc, streaming=reader.streaming,
    )


# -- DataFrames ---------------------------------------------------------------------------


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
        return Grouped(plan, name, keys, loc)
    if name == "agg":
        return aggregate(Grouped(plan, "groupBy", (), loc), args, loc)  # df.agg = groupBy().agg
    if name in ("dropDuplicates", "drop_duplicates", "dropDuplicatesWithinWatermark", "distinct"):
        subset = flatten(args) if args else kwargs.get("subset")
        keys, inputs = dedup_keys(plan, subset)
        op = Deduplication(name, keys, name == "dropDuplicatesWithinWatermark", inputs, loc)
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
        interp.views[args[0].lower()] = plan
        return None
    if name in ("printSchema", "explain"):
        return None
    if name in ACTIONS:
        return Unknown(interp.code(node))
    # A DataFrame method streamlint does not model: keep the query, and say what was not read.
    note = (f"the DataFrame method `{name}(...)` is not modelled by streamlint", loc)
    return replace(plan, columns=None, unresolved=(*plan.unresolved, note))


# Methods that a Column has too: on something unknown they are not taken as a DataFrame.
COLUMN_METHODS = {"alias", "name", "cast", "astype", "over", "isNull", "isNotNull", "isin",
                  "between", "like", "rlike", "contains", "startswith", "endswith", "desc",
                  "asc", "getItem", "getField", "when", "otherwise", "substr"}
ACTIONS = {"count", "first", "head", "take", "collect", "show", "toPandas", "isEmpty",
           "foreach", "foreachPartition", "toJSON", "toLocalIterator", "describe", "summary"}


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
    else:
        output_schema = arg(1, "outputStructType")
        state_schema = arg(2, "stateStructType")
        output_mode = arg(3, "outputMode")
        timeout = arg(4, "timeoutConf")
    op = ArbitraryState(
        api=name, keys=tuple(resolved_key(grouped.plan, k) for k in grouped.keys),
        function=function_name, inputs=inputs_of(grouped.plan, list(grouped.keys)),
        output_schema=schema_of(output_schema), state_schema=schema_of(state_schema)
        if not isinstance(state_schema, tuple) else state_schema,
        # Spark parses the output mode case-insensitively: "Update" is "update".
        output_mode=output_mode.lower() if isinstance(output_mode, str) else plain(output_mode),
        timeout=plain(timeout), loc=grouped.loc,
    )
    return grouped.plan.then(op, columns=None, definitions=())


def function_label(interp: Interpreter, function: Any) -> str:
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
    if not isinstance(processor, Instance):
        return Unknown(function_label(interp, processor))
    init = processor.cls.methods.get("init")
    if init is None:
        return ()
    handle = StateHandle()
    interp.call_function(Function(init, processor.cls.env, processor), [handle], {}, init)
    return tuple(handle.declared)


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


# -- writers ------------------------------------------------------------------------------


def writer_call(  # noqa: C901 - one branch per DataStreamWriter method
    interp: Interpreter, writer: Writer, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Any:
    if name == "format":
        return writer.copy(format=args[0] if args else kwargs.get("source"))
    if name == "option":
        key = args[0] if args else kwargs.get("key")
        value = args[1] if len(args) > 1 else kwargs.get("value")
        changes: dict[str, Any] = {"options": (*writer.options, (key, value))}
        if isinstance(key, str) and key.lower() == "checkpointlocation":
            changes["checkpoint_loc"] = loc
        return writer.copy(**changes)
    if name == "options":
        items = list(kwargs.items())
        if args and isinstance(args[0], dict):
            items = list(args[0].items()) + items
        changes = {"options": (*writer.options, *items)}
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
        return writer.copy(partition_by=tuple(flatten(args)))
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
            if key == "format" and name != "toTable":
                fmt = value
            elif key == "outputMode":
                writer = writer.copy(output_mode=value, output_mode_loc=loc)
            elif key == "queryName":
                writer = writer.copy(query_name=value)
            else:
                writer = writer.copy(partition_by=value if isinstance(value, tuple) else (value,))
    for key, value in kwargs.items():
        options.append((key, value))
        if key.lower() == "checkpointlocation":
            writer = writer.copy(checkpoint_loc=loc)
    writer = writer.copy(options=tuple(options), format=fmt)
    interp.effects.queries.append(writer)
    return StartedQuery(len(interp.effects.queries) - 1)


def foreach_code(interp: Interpreter, foreach: tuple[str, Any, Loc]) -> ForeachCode:
    method, function, loc = foreach
    if isinstance(function, Function):
        code = fingerprint(interp, function.node)
        return ForeachCode(method, function.node.name.value, code, loc)
    if isinstance(function, Instance):
        return ForeachCode(method, function.cls.node.name.value,
                           fingerprint(interp, function.cls.node), loc)
    if isinstance(function, Lambda):
        return ForeachCode(method, "lambda", fingerprint(interp, function.node), loc)
    label = function_label(interp, function)
    return ForeachCode(method, label, label, loc)


def fingerprint(interp: Interpreter, node: cst.CSTNode) -> str:
    """A function's code without comments or formatting, so only a real edit changes it.

    The standard library's own parser drops comments, blank lines, line breaks inside
    brackets and quote styles; its unparsed text is the canonical form.
    """
    code = interp.module.code_for_node(node)
    if isinstance(node, cst.FunctionDef | cst.ClassDef):
        # libcst keeps the comment lines written above a definition with it.
        code = interp.module.code_for_node(node.with_changes(leading_lines=()))
    try:
        tree = ast.parse(textwrap.dedent(code).strip(), mode="eval" if isinstance(
            node, cst.Lambda) else "exec")
    except SyntaxError:  # libcst reads syntax this Python cannot: fall back to the text
        return " ".join(code.split())
    return ast.unparse(tree)
