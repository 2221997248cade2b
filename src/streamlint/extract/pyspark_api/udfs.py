"""PySpark's Python UDFs: `udf(f, returnType)` is a function of columns whose result has the
declared type, a DDL string or a type built in code (StringType when none is given, as
`pyspark.sql.functions.udf` defaults: https://spark.apache.org/docs/latest/api/python/reference/pyspark.sql/api/pyspark.sql.functions.udf.html).
A struct it returns is flattened by `select("data.*")` into its fields, as Spark does, so the
columns after it are known by name and type. What `f` computes stays the job's own logic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.columns import as_col
from streamlint.extract.schemas import schema_type
from streamlint.extract.spark_values import Col, Schema
from streamlint.extract.values import Function, FunctionRef, Lambda
from streamlint.model import Unknown
from streamlint.model.expr import Call, Cast
from streamlint.model.records import record
from streamlint.model.schema_text import normalize_type, split_top_level

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


@record
class Udf:
    """`udf(f, returnType)`: `name` is what Spark names its result (`f.__name__`), `returns`
    the result's type in Spark's simple string."""

    name: str
    returns: str


def udf_of(args: list[Any], kwargs: dict[str, Any]) -> Udf | None:
    """`udf(f)`, `udf(f, "string")`, `udf(f, StructType([...]))`; None for the decorator
    form (`udf("int")`, `udf(returnType=...)`) and for a type known only at run time."""
    f = args[0] if args else kwargs.get("f")
    returns = args[1] if len(args) > 1 else kwargs.get("returnType", "string")
    if isinstance(f, Function):
        name = f.node.name.value
    elif isinstance(f, Lambda):
        name = "<lambda>"
    elif isinstance(f, FunctionRef):
        name = f.name
    elif isinstance(f, Unknown):
        name = f.text.rsplit(".", 1)[-1]
    else:
        return None
    type_text = return_type(returns)
    return None if type_text is None else Udf(name, type_text)


def return_type(value: Any) -> str | None:
    """A UDF's declared result type: a simple type (`"int"`, `StringType()`) as itself, a
    list of fields (`"a int, b string"`) as the struct PySpark parses it to."""
    if isinstance(value, Schema):
        return value.text
    if not isinstance(value, str):
        return None
    simple = normalize_type(value)
    head = simple.split("<", 1)[0]
    if len(split_top_level(value)) == 1 and " " not in head and ":" not in head:
        return simple
    return schema_type(value)


@registry.method(Udf, "__call__")
def udf_called(interp: Interpreter, target: Udf, name: str, args: list[Any],
               kwargs: dict[str, Any], node: cst.Call) -> Col:
    """`f_udf(col("x"))`: the function applied to its columns, of the declared type."""
    applied = Call(target.name, tuple(as_col(a).expr for a in (*args, *kwargs.values())))
    return Col(Cast(applied, target.returns), None)
