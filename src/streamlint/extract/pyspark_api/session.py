"""PySpark's session and its library: SparkSession and its builder, `spark.conf`,
`pyspark.sql.functions`, `pyspark.sql.types`, and the objects a job reaches from code
streamlint cannot see (a notebook's predefined `spark`, `dbutils.widgets`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import bundles, config_files, pyspark_names, registry
from streamlint.extract.columns import col_sql, function_of, is_unknown, literal
from streamlint.extract.frames import unresolved_plan
from streamlint.extract.pyspark_api.dataframe import (
    ACTIONS,
    COLUMN_METHODS,
    DF_METHODS,
    dataframe_call,
    mark_reached,
)
from streamlint.extract.pyspark_api.reader import static_source
from streamlint.extract.pyspark_api.settings import record_settings
from streamlint.extract.pyspark_api.udfs import udf_of
from streamlint.extract.pyspark_api.writer import new_writer
from streamlint.extract.python_api import call_os
from streamlint.extract.removals import FS_UTILITIES, record
from streamlint.extract.schemas import schema_add, schema_type
from streamlint.extract.spark_values import Builder, Conf, Plan, Reader, Schema, Spark, column
from streamlint.extract.symbolic import digest, is_data
from streamlint.extract.values import BoundMethod, FunctionRef
from streamlint.extract.widgets import widget_call
from streamlint.model import Loc, Unknown
from streamlint.model.schema_text import TYPE_CLASSES

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# pyspark.sql.functions spellings of `count(DISTINCT x)`; `model.expr.call` folds the rest.
FUNCTION_ALIASES = {
    "countDistinct": "countdistinct", "count_distinct": "countdistinct",
    "sumDistinct": "sumdistinct", "sum_distinct": "sumdistinct",
    "approxCountDistinct": "approx_count_distinct",
}


# The schema argument by position: a DDL string and the same StructType must read the same.
SCHEMA_ARGS = {"from_json": 1, "from_csv": 1}


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


# PySpark's modules: any `pyspark.*` module's names are its functions; Spark Connect's
# functions are the classic ones.
registry.modules("pyspark", "pyspark.sql", "pyspark.sql.functions", "pyspark.sql.types",
                 "pyspark.sql.streaming", "pyspark.sql.streaming.state", "pyspark.sql.connect",
                 package="pyspark",
                 aliases={"pyspark.sql.connect.functions": "pyspark.sql.functions"})
# `from pyspark.sql.functions import *` binds PySpark's own list of names, no others.
registry.star_names(pyspark_names.FUNCTIONS, "pyspark.sql.functions",
                    "pyspark.sql.connect.functions", bound_to="pyspark.sql.functions")
registry.star_names(pyspark_names.TYPES, "pyspark.sql.types")


@registry.library("pyspark.sql.functions")
def functions_call(interp: Interpreter, func: FunctionRef, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    if func.name == "broadcast" and args and isinstance(args[0], Plan):
        return args[0]  # a join hint: the DataFrame itself
    if func.name == "udf" and (made := udf_of(args, kwargs)) is not None:
        return made
    return call_functions(func.name, args, kwargs)


@registry.library("pyspark.sql.types")
def types_call(interp: Interpreter, func: FunctionRef, args: list[Any], kwargs: dict[str, Any],
               node: cst.Call) -> Any:
    return call_types(func.name, args, kwargs)


@registry.library("pyspark.sql")
def session_class(interp: Interpreter, func: FunctionRef, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    return Spark() if func.name == "SparkSession" else registry.NEXT


# -- attributes ---------------------------------------------------------------------------


@registry.attribute(object)
def any_attribute(interp: Interpreter, target: Any, name: str, node: cst.CSTNode) -> Any:
    mark_reached(interp, name, node)
    return BoundMethod(target, name)


@registry.attribute(FunctionRef)
def class_attribute(interp: Interpreter, target: FunctionRef, name: str,
                    node: cst.CSTNode) -> Any:
    if target.name == "SparkSession":
        if name == "builder":
            return Builder()
        return BoundMethod(Spark(), name)
    if target.name == "GroupStateTimeout":
        return name  # PySpark's GroupStateTimeout.EventTimeTimeout is the string itself
    return registry.NEXT


@registry.attribute(Spark)
def session_attribute(interp: Interpreter, target: Spark, name: str, node: cst.CSTNode) -> Any:
    mark_reached(interp, name, node)
    if name in ("readStream", "read"):
        return Reader(streaming=name == "readStream", loc=interp.loc(node))
    if name == "conf":
        return Conf()
    return registry.NEXT


@registry.attribute(Unknown)
def unknown_attribute(interp: Interpreter, target: Unknown, name: str,
                      node: cst.CSTNode) -> Any:
    mark_reached(interp, name, node)
    if name in ("readStream", "read"):
        if name == "read" and "spark" not in target.text.lower():
            return BoundMethod(target, name)
        return Reader(streaming=name == "readStream", loc=interp.loc(node))
    if name == "conf" and "spark" in target.text.lower():
        return Conf()
    if name == "writeStream":
        return new_writer(interp, unresolved_plan(target, interp.loc(node)), node)
    if target.unread:
        return config_files.unread_attribute(target, name)
    return registry.NEXT


@registry.attribute(Builder)
def builder_attribute(interp: Interpreter, target: Builder, name: str,
                      node: cst.CSTNode) -> Any:
    return target if name == "builder" else registry.NEXT


# -- methods ------------------------------------------------------------------------------


@registry.method(BoundMethod)
def unknown_member_method(interp: Interpreter, target: BoundMethod, name: str, args: list[Any],
                          kwargs: dict[str, Any], node: cst.Call) -> Any:
    if isinstance(target.target, Unknown) and target.target.unread:
        return config_files.unread_method(interp, target.target, node)
    if isinstance(target.target, Unknown):
        # `dbutils.widgets.get(...)` or `W = dbutils.widgets; W.get(...)`: one unknown object.
        return registry.call_method(interp, Unknown(f"{target.target.text}.{target.name}"),
                                    name, args, kwargs, node)
    return registry.NEXT


@registry.method(Unknown)
def unknown_method(interp: Interpreter, target: Unknown, name: str, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    if target.text.endswith("dbutils.widgets"):
        return widget_call(interp, name, args, kwargs, node)
    if name == "rm" and target.text.endswith(FS_UTILITIES):
        recurse = args[1] if len(args) > 1 else kwargs.get("recurse", False)
        if recurse is True:  # a folder goes only with recurse=True
            record(interp, args[:1] or [kwargs.get("dir")])
        return None
    if name in ("sql", "table") and (
            target.text.split(".")[-1].lower() in ("spark", "spark_session", "session")):
        # A notebook's predefined `spark` (or `self.spark`): the session, for what it reads.
        return registry.call_method(interp, Spark(), name, args, kwargs, node)
    if name == "createDataFrame":  # only a session (or an SQLContext) has it
        return created_frame(args, kwargs, interp.loc(node))
    if name in DF_METHODS and name not in COLUMN_METHODS and name not in ACTIONS:
        # A DataFrame from code we cannot see: keep following the chain.
        loc = interp.loc(node)
        return dataframe_call(interp, unresolved_plan(target, loc), name, args, kwargs,
                              node, loc)
    if target.unread:
        return config_files.unread_method(interp, target, node, name, tuple(args))
    if name in ("get", "getenv") and target.text in ("os.environ", "environ") and len(args) > 1:
        return call_os(interp, FunctionRef("os", "get"), args, kwargs, node)
    if name in ("get", "getArgument") and target.text.endswith("widgets") and args and (
            isinstance(args[0], str)):
        # However a notebook reaches it (`dbutils.widgets`, `W = dbutils.widgets`), a
        # widget is one run-time value, named by its key (or the bundle's value).

        return widget_call(interp, name, args, kwargs, node)
    return registry.NEXT


@registry.method(FunctionRef)
def unbound_method(interp: Interpreter, target: FunctionRef, name: str, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    if target.name == "DataFrame" and args:
        # DataFrame.unionByName(a, b), as handed to functools.reduce: a.unionByName(b).
        return registry.call_method(interp, args[0], name, list(args[1:]), kwargs, node)
    return registry.NEXT


@registry.method(Builder)
def builder_method(interp: Interpreter, target: Builder, name: str, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "config":
        record_settings(interp, args, kwargs, interp.loc(node))
    return Spark() if name in ("getOrCreate", "create") else target


@registry.method(Spark)
def session_method(interp: Interpreter, target: Spark, name: str, args: list[Any],
                   kwargs: dict[str, Any], node: cst.Call) -> Any:
    loc = interp.loc(node)
    if name == "table" and args and isinstance(args[0], str) and (
            args[0].lower() in interp.ext.views):  # a temp view: the DataFrame it names
        return interp.ext.views[args[0].lower()]
    if name == "table" and args:
        found = registry.read_table(interp, args[0], False, loc)
        if found is not registry.NEXT:
            return found
        return Plan((static_source("table", (("table", args[0]),), loc),), (), False)
    if name in ("getActiveSession", "active", "newSession"):
        return target
    if name == "createDataFrame":
        return created_frame(args, kwargs, loc)
    if name == "sql" and args and isinstance(args[0], str):
        # Imported here: the SQL statement reader loads sqlglot (about 0.1 s), for a job
        # that runs SQL only.
        from streamlint.extract.sql.statements import run_sql

        return run_sql(interp, args[0], node, loc)
    return Unknown(interp.code(node))


def created_frame(args: list[Any], kwargs: dict[str, Any], loc: Loc) -> Plan:
    """`spark.createDataFrame(rows, ["id", "name"])`: a static DataFrame, its columns named
    when the schema is a list of names. The rows are what it "reads": the same literal rows
    are the same table, anything else is the code that builds them."""
    data = args[0] if args else kwargs.get("data")
    schema = args[1] if len(args) > 1 else kwargs.get("schema")
    if is_data(data) and data is not None:
        rows: Any = "#" + digest(data)
    else:
        rows = Unknown(literal(data))
    columns = (schema if isinstance(schema, tuple) and schema
               and all(isinstance(c, str) for c in schema) else ("*",))
    # The schema is part of what it is: a DDL string or a StructType renames its columns.
    shape = schema if is_data(schema) else "#" + digest(schema)
    return Plan((static_source("createDataFrame", (("rows", rows), ("schema", shape)), loc),),
                (), False, columns=columns)


@registry.method(Conf)
def conf_method(interp: Interpreter, target: Conf, name: str, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "set":
        record_settings(interp, args, kwargs, interp.loc(node))
    if name == "get":  # a run-time value (pipeline parameters are read this way)
        default = args[1] if len(args) > 1 else kwargs.get("defaultValue")
        key = args[0] if args else kwargs.get("key")
        if not isinstance(key, str):
            return default if default is not None else Unknown(interp.code(node))
        # The job's or the pipeline's configuration may set it: a deployment's default,
        # unless the job's bundle sets it (a cluster's spark_conf, a pipeline's
        # configuration).
        given = bundles.setting(bundles.of_loader(interp.loader), "conf", key, default)
        return bundles.parameter(given, default, f"Spark configuration {key}",
                        default if default is not None else Unknown(interp.code(node)))
    return None


@registry.method(Schema, "add")
def schema_method(interp: Interpreter, target: Schema, name: str, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    return schema_add(target, args, kwargs)


