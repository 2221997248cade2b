"""AWS Glue streaming jobs: the job's arguments and the streams a GlueContext creates.

A Glue streaming job reads its parameters with `getResolvedOptions(sys.argv, [names])` (the
values the job run is given, by name) and its stream with
`glueContext.create_data_frame.from_options(connection_type="kinesis",
connection_options={...})`, a Spark streaming DataFrame like `spark.readStream` gives
(https://docs.aws.amazon.com/glue/latest/dg/add-job-streaming.html). Without this the
stream comes from code streamlint cannot follow, and a renamed variable holding the job's
arguments reads as a changed checkpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.pyspark_api.reader import make_source
from streamlint.extract.spark_values import Plan, Reader, Spark
from streamlint.extract.values import FunctionRef
from streamlint.model import Unknown
from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# Glue's streaming connection types (the others, s3 or jdbc, give batch DataFrames).
STREAMING = frozenset({"kinesis", "kafka"})


@record
class GlueContext:
    """`GlueContext(sc)`."""


@record
class DataFrames:
    """`glueContext.create_data_frame`: its `from_options` / `from_catalog` create them."""


def argument(name: str) -> Unknown:
    """What the job run passes as `--NAME`: known at run time, the same in both versions
    whatever the variable holding it is called."""
    return Unknown(f"the Glue job argument --{name}")


@registry.library("awsglue.utils")
def glue_utils(interp: Interpreter, func: FunctionRef, args: list[Any],
               kwargs: dict[str, Any], node: cst.Call) -> Any:
    names = args[1] if len(args) > 1 else kwargs.get("options")
    if func.name == "getResolvedOptions" and isinstance(names, tuple | list) \
            and all(isinstance(n, str) for n in names):
        return {name: argument(name) for name in names}
    return registry.NEXT


@registry.library("awsglue.context")
def glue_context(interp: Interpreter, func: FunctionRef, args: list[Any],
                 kwargs: dict[str, Any], node: cst.Call) -> Any:
    return GlueContext() if func.name == "GlueContext" else registry.NEXT


@registry.attribute(GlueContext)
def context_attribute(interp: Interpreter, target: GlueContext, name: str,
                      node: cst.CSTNode) -> Any:
    if name == "create_data_frame":
        return DataFrames()
    if name == "spark_session":
        return Spark()
    return registry.NEXT


@registry.method(DataFrames, "from_options")
def from_options(interp: Interpreter, target: DataFrames, name: str, args: list[Any],
                 kwargs: dict[str, Any], node: cst.Call) -> Any:
    kind = kwargs.get("connection_type", args[0] if args else None)
    options = kwargs.get("connection_options", args[1] if len(args) > 1 else None)
    if not isinstance(kind, str) or kind.lower() not in STREAMING \
            or not isinstance(options, dict):
        return registry.NEXT
    source = make_source(Reader(streaming=True, loc=interp.loc(node)), kind,
                         [(str(key), value) for key, value in options.items()])
    interp.effects.streams.append(source)
    return Plan((source,), (), True, columns=None)
