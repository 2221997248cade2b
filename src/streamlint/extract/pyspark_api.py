"""What PySpark's objects do, for the interpreter: readers, DataFrames, groupings, writers.

Each method a job can call on a symbolic object is translated into the plain records of
`streamlint.model`; anything not listed keeps the DataFrame as it was (a map-like step that
cannot change what a checkpoint holds) or becomes an `Unknown`.
"""

from __future__ import annotations

import ast
import posixpath
import re
import textwrap
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import pipelines
from streamlint.extract.budget import MAX_VALUE
from streamlint.extract.columns import (
    LITERAL_ARGS,
    as_col,
    col_method,
    col_of,
    col_sql,
    function_col,
    last_wins,
    literal,
    option_value,
    plain,
)
from streamlint.extract.schema_text import TYPE_CLASSES, split_top_level
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
    AggCall,
    Aggregation,
    ArbitraryState,
    Deduplication,
    Filter,
    ForeachCode,
    Loc,
    Projection,
    Setting,
    Source,
    StaticJoin,
    StreamJoin,
    Union_,
    Unknown,
    Watermark,
    option,
    show,
)
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
# pyspark.sql.functions names that are the same function.
FUNCTION_ALIASES = {
    "mean": "avg", "std": "stddev_samp", "stddev": "stddev_samp", "variance": "var_samp",
    "countDistinct": "count_distinct", "approxCountDistinct": "approx_count_distinct",
    "sumDistinct": "sum_distinct", "every": "bool_and", "some": "bool_or",
}
JOIN_TYPES = {
    "inner": "inner", "cross": "cross", "outer": "full_outer", "full": "full_outer",
    "fullouter": "full_outer", "full_outer": "full_outer", "left": "left_outer",
    "leftouter": "left_outer", "left_outer": "left_outer", "right": "right_outer",
    "rightouter": "right_outer", "right_outer": "right_outer", "semi": "left_semi",
    "leftsemi": "left_semi", "left_semi": "left_semi", "anti": "left_anti",
    "leftanti": "left_anti", "left_anti": "left_anti",
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
    """`pyspark.sql.functions.<name>(...)` as a canonical column."""
    name = FUNCTION_ALIASES.get(name, name)
    if name == "broadcast" and args and isinstance(args[0], Plan):
        return args[0]  # a join hint: the DataFrame is the same one
    if name in ("col", "column") and args and isinstance(args[0], str):
        return column(args[0])
    if name == "lit":
        return Col(literal(args[0]) if args else "lit()", None)
    if name == "expr" and args and isinstance(args[0], str):
        return col_sql(args[0])
    if name == "window" and len(args) >= 3 and args[2] == args[1] and len(args) < 4:
        args = args[:2]  # a slide equal to the duration is the tumbling window itself
    literal_positions = LITERAL_ARGS.get(name, set())
    parts: list[str] = []
    refs: set[str] = set()
    for i, arg in enumerate([*args, *kwargs.values()]):
        if i == SCHEMA_ARGS.get(name) and isinstance(arg, str | Schema):
            parts.append(schema_type(arg))
            continue
        if i in literal_positions and not isinstance(arg, Col):
            parts.append(literal(arg))
            continue
        col = as_col(arg)
        refs |= col.refs
        parts.append(col.text)
    return function_col(name, parts, refs)


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
        type_text = data_type.text if isinstance(data_type, Schema) else literal(data_type)
        return Schema(f"{field_name}:{type_text}" + ("" if nullable is not False else " not null"))
    if name == "StructType":
        fields = args[0] if args else kwargs.get("fields", ())
        if isinstance(fields, tuple) and all(isinstance(f, Schema) for f in fields):
            return Schema("struct<" + ",".join(f.text for f in fields) + ">")
        return Unknown(f"StructType({literal(fields)})")
    if name == "ArrayType":
        inner = args[0] if args else kwargs.get("elementType")
        return Schema(f"array<{inner.text if isinstance(inner, Schema) else literal(inner)}>")
    if name == "MapType":
        key, value = (args + [None, None])[:2]
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


def unresolved_plan(origin: Any, loc: Loc) -> Plan:
    """A DataFrame streamlint cannot follow: no sources known, and a note saying so.

    A join or union with it is kept (with this note), never silently dropped.
    """
    if not isinstance(origin, Unknown):
        known = plain(origin)
        origin = known if isinstance(known, Unknown) else Unknown(repr(known))
    note = (f"the DataFrame comes from `{origin.text}`, which streamlint cannot follow", loc)
    return Plan(sources=(), operators=(), streaming=True, columns=None, unresolved=(note,))


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
    if func.module == "os.path" and func.name == "join" and args and all(
            isinstance(a, str) for a in args):
        return posixpath.join(*args)  # jobs run on POSIX clusters, whatever the laptop is
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
    if name == "join" and args and isinstance(args[0], tuple) and all(
            isinstance(a, str) for a in args[0]):
        joined = target.join(args[0])
        return joined if len(joined) <= MAX_VALUE else Unknown(interp.code(node))
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


def flatten(args: list[Any]) -> list[Any]:
    if len(args) == 1 and isinstance(args[0], tuple):
        return list(args[0])
    return args


def inputs_of(plan: Plan, cols: list[Col]) -> tuple[str, ...]:
    """How each column a stateful operator reads was computed upstream (for type changes)."""
    seen: dict[str, str] = {}
    for col in cols:
        for ref in col.refs:
            definition = origin(plan, f"col({ref})")
            if definition != f"col({ref})":
                seen[ref] = f"{ref} = {definition}"
    return tuple(seen[k] for k in sorted(seen))


def dataframe_call(  # noqa: C901 - one branch per DataFrame method family
    interp: Interpreter, plan: Plan, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Any:
    if name in ("filter", "where"):
        condition = args[0] if args else kwargs.get("condition")
        text = col_sql(condition).text if isinstance(condition, str) else literal(condition)
        return plan.then(Filter(text, loc))
    if name in PROJECTIONS:
        return project(interp, plan, name, args, kwargs, loc)
    if name == "withWatermark":
        event_time = args[0] if args else kwargs.get("eventTime")
        delay = args[1] if len(args) > 1 else kwargs.get("delayThreshold")
        return plan.then(Watermark(as_col(event_time).text, plain(delay), loc))
    if name in ("groupBy", "groupby", "rollup", "cube"):
        keys = tuple(as_col(k) for k in flatten(args))
        return Grouped(plan, name, keys, loc)
    if name == "agg":
        return aggregate(Grouped(plan, "groupBy", (), loc), args, loc)  # df.agg = groupBy().agg
    if name in ("dropDuplicates", "drop_duplicates", "dropDuplicatesWithinWatermark", "distinct"):
        subset = flatten(args) if args else kwargs.get("subset")
        if isinstance(subset, tuple):
            subset = list(subset)
        if not subset and plan.columns is not None and "*" not in plan.columns:
            # No subset: every column is the key, so a column added upstream changes it.
            subset = list(plan.columns)
        key_cols = [as_col(k) for k in subset or []]
        keys = tuple(resolved_key(plan, k) for k in key_cols) if subset else None
        op = Deduplication(name, keys, name == "dropDuplicatesWithinWatermark",
                           inputs_of(plan, key_cols), loc)
        return plan.then(op)
    if name == "join":
        return join(interp, plan, args, kwargs, loc)
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


def project(interp: Interpreter, plan: Plan, name: str, args: list[Any], kwargs: dict[str, Any],
            loc: Loc) -> Plan:
    columns = list(plan.columns) if plan.columns is not None else None
    definitions = list(plan.definitions)
    exprs: list[str] = []
    if name in ("select", "selectExpr", "toDF"):
        cols = [col_sql(a) if name == "selectExpr" and isinstance(a, str) else as_col(a)
                for a in flatten(args)]
        new_columns: list[str] = []
        star_unknown = False
        for col in cols:
            exprs.append(col.text if col.name is None or col.text == f"col({col.name})"
                         else f"{col.text} AS {col.name}")
            output = col.name or ("*" if col.text == "*" else col.text)
            if output == "*":
                # `*` is every input column: the output is only known if the input is.
                star_unknown = star_unknown or columns is None
                new_columns.extend(columns or ())
                continue
            expanded = expand_struct(plan, output)
            if expanded:
                new_columns.extend(name for name, _ in expanded)
                definitions.extend(expanded)
                continue
            new_columns.append(output)
            if col.name and col.text != f"col({col.name})":
                definitions.append((col.name, col.text))
        if name == "toDF":
            new_columns = [str(a) for a in flatten(args)]
        columns = None if star_unknown and name != "toDF" else new_columns
    elif name == "withColumn":
        col_name, col = (args + [None, None])[:2]
        if not isinstance(col_name, str):  # a symbolic object's repr can be huge: its text
            col_name = literal(col_name if col_name is not None else kwargs.get("colName"))
        col = as_col(col if col is not None else kwargs.get("col"))
        exprs.append(f"{col_name} = {col.text}")
        definitions.append((str(col_name), col.text))
        if columns is not None and col_name not in columns:
            columns.append(str(col_name))
    elif name == "withColumns":
        mapping = args[0] if args and isinstance(args[0], dict) else kwargs
        for col_name, col in mapping.items():
            col = as_col(col)
            exprs.append(f"{col_name} = {col.text}")
            definitions.append((str(col_name), col.text))
            if columns is not None and col_name not in columns:
                columns.append(str(col_name))
    elif name in ("withColumnRenamed", "withColumnsRenamed"):
        given = list(args) + [kwargs.get(k) for k in ("existing", "new")][len(args):]
        mapping = args[0] if args else kwargs.get("colsMap")
        pairs = (list(mapping.items()) if isinstance(mapping, dict)
                 else [tuple(given[:2])] if len(given) >= 2 and None not in given[:2] else [])
        if not pairs:  # a call Spark itself refuses, or a map not known here: columns unknown
            exprs.extend(literal(a) for a in args)
            columns = None
        for old, new in ((o if isinstance(o, str) else literal(o),
                          n if isinstance(n, str) else literal(n)) for o, n in pairs):
            exprs.append(f"{old} -> {new}")
            definitions.append((str(new), f"col({old})"))  # a rename: the same column
            if columns is not None:
                columns = [str(new) if c == old else c for c in columns]
                if old not in (plan.columns or ()):
                    columns.append(f"{old}->{new}")
    elif name == "drop":
        for col in flatten(args):
            text = col if isinstance(col, str) else as_col(col).name or as_col(col).text
            exprs.append(f"-{text}")
            if columns is not None:
                if text in columns:
                    columns.remove(text)
                else:
                    columns.append(f"-{text}")
    else:
        exprs.extend(literal(a) for a in args)
        if name not in ("alias",):
            columns = None
    return plan.then(Projection(name, tuple(exprs), tuple(columns) if columns is not None
                                else None, loc),
                     columns=tuple(columns) if columns is not None else None,
                     definitions=tuple(definitions))


def expand_struct(plan: Plan, output: str) -> list[tuple[str, str]]:
    """`select("o.*")` after `from_json(...).alias("o")`: one column per schema field."""
    if not output.endswith(".*"):
        return []
    definition = plan.definition(output[:-2]) or ""
    match = re.search(r"struct<(.*)>", definition)
    if not match:
        return []
    fields = split_top_level(match.group(1))
    # The struct's alias ("o") is gone once it is flattened: naming it here would make a
    # renamed alias look like a column computed differently. The field's type is what counts.
    return [(f.split(":", 1)[0], f"field {f}") for f in fields if ":" in f]


def join(interp: Interpreter, plan: Plan, args: list[Any], kwargs: dict[str, Any],
         loc: Loc) -> Plan:
    other = args[0] if args else kwargs.get("other")
    on = args[1] if len(args) > 1 else kwargs.get("on")
    how = args[2] if len(args) > 2 else kwargs.get("how", "inner")
    how = JOIN_TYPES.get(how.lower().replace(" ", ""), how) if isinstance(how, str) else how
    how = "inner" if how is None else plain(how)
    if not isinstance(other, Plan):
        other = unresolved_plan(other, loc)
    keys: tuple[str, ...] = ()
    condition: str | None = None
    cols: list[Col] = []
    if isinstance(on, str):
        keys = (column(on).text,)
        cols = [column(on)]
    elif isinstance(on, tuple) and all(isinstance(k, str) for k in on):
        keys = tuple(column(k).text for k in on)
        cols = [column(k) for k in on]
    elif isinstance(on, tuple):
        cols = [as_col(c) for c in on]
        condition = " & ".join(c.text for c in cols)
    elif on is not None:
        cols = [as_col(on)]
        condition = cols[0].text
    if not (plan.streaming and other.streaming):
        static = other if not other.streaming else plan
        identity = ", ".join(f"{k}={literal(v)}" for s in static.sources for k, v in s.identity)
        op: Any = StaticJoin(how, f"{condition or ', '.join(keys)} with {identity}", loc)
        stream = plan if plan.streaming else other
        return Plan(stream.sources, (*stream.operators, op), True, None,
                    stream.definitions, stream.unresolved + static.unresolved)
    inputs = tuple(sorted(set(inputs_of(plan, cols)) | set(inputs_of(other, cols))))
    op = StreamJoin(how, keys, condition, inputs, loc)
    return Plan(
        sources=plan.sources + other.sources,
        operators=(*plan.operators, *other.operators, op), streaming=True, columns=None,
        definitions=plan.definitions + other.definitions,
        unresolved=plan.unresolved + other.unresolved,
    )


# -- groupings ----------------------------------------------------------------------------


def aggregate(grouped: Grouped, args: list[Any], loc: Loc) -> Plan:
    calls: list[AggCall] = []
    cols: list[Col] = list(grouped.keys)
    items = flatten(args)
    if len(items) == 1 and isinstance(items[0], dict):
        items = [Col(f"{fn}(col({c}))", None, function=str(fn), args=(f"col({c})",),
                     refs=frozenset({str(c)})) for c, fn in items[0].items()]
    for item in items:
        col = as_col(item)
        cols.append(col)
        calls.append(AggCall(col.function or col.text, col.args, col.name))
    return finish_aggregation(grouped, tuple(calls), cols, loc)


def resolved_key(plan: Plan, col: Col) -> str:
    """A key through upstream renames: `withColumnRenamed("user_id", "uid").groupBy("uid")`
    groups by the same column as `groupBy(F.col("user_id").alias("uid"))`."""
    text = col.text
    for _ in range(10):
        name = _column_name(text)
        definition = plan.definition(name) if name else None
        if definition is None or _column_name(definition) is None or definition == text:
            return text
        text = definition
    return text


def origin(plan: Plan, text: str) -> str:
    """What a column reference finally stands for, through renames: the expression that
    computed it upstream, or the plain column when nothing did."""
    for _ in range(10):
        name = _column_name(text)
        definition = plan.definition(name) if name else None
        if definition is None or definition == text:
            return text
        text = definition
    return text


def _column_name(text: str) -> str | None:
    return text[4:-1] if text.startswith("col(") and text.endswith(")") and "(" not in text[
        4:-1] else None


def finish_aggregation(grouped: Grouped, calls: tuple[AggCall, ...], cols: list[Col],
                       loc: Loc) -> Plan:
    plan = grouped.plan
    op = Aggregation(grouped.method, tuple(resolved_key(plan, k) for k in grouped.keys), calls,
                     inputs_of(plan, cols), grouped.loc)
    names = [k.name or k.text for k in grouped.keys]
    names += [c.alias or f"{c.function}({', '.join(c.args)})" for c in calls]
    return plan.then(op, columns=tuple(names), definitions=())


def grouped_call(
    interp: Interpreter, grouped: Grouped, name: str, args: list[Any], kwargs: dict[str, Any],
    node: cst.Call, loc: Loc,
) -> Any:
    if name == "agg":
        return aggregate(grouped, args, loc)
    if name in AGG_METHODS:
        columns = [as_col(a) for a in flatten(args)] or ([column("*")] if name == "count" else [])
        function = "avg" if name == "mean" else name
        calls = tuple(AggCall(function, (c.text,), name if name == "count" else None)
                      for c in columns)
        return finish_aggregation(grouped, calls, list(grouped.keys) + columns, loc)
    if name == "pivot":
        pivot = args[0] if args else kwargs.get("pivot_col")
        return replace(grouped, keys=(*grouped.keys, Col(f"pivot({literal(pivot)})")))
    if name in ("applyInPandasWithState", "transformWithStateInPandas", "transformWithState",
                "flatMapGroupsWithState", "mapGroupsWithState"):
        return arbitrary_state(interp, grouped, name, args, kwargs, node, loc)
    if name in ("applyInPandas", "applyInArrow", "cogroup"):
        return grouped.plan.then(Projection(name, tuple(literal(a) for a in args), None, loc),
                                 columns=None)
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
        api=name, keys=tuple(k.text for k in grouped.keys), function=function_name,
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
