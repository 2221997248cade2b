"""pyspark.ml on a stream: a feature transformer or a fitted model scoring each row.

A streaming job that scores events loads a model (`PipelineModel.load(path)`,
`RandomForestClassificationModel.load(path)`) or builds a feature step (`VectorAssembler(...)`)
and calls `.transform(df)` on the stream. A Transformer works row by row: it adds its output
columns (features, prediction, probability, ...) and keeps no state, so for a restart it is a
projection whose new columns streamlint cannot name. Without this the stream would go into
code streamlint cannot follow, and every edit near it would be a review.

A model's `fit` is batch work (an Estimator cannot fit a stream); it gives another stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.spark_values import Plan
from streamlint.extract.values import FunctionRef
from streamlint.model import Projection
from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# The modules of PySpark's ML library whose classes are stages (pyspark 3.5 to 4.3).
MODULES = (
    "pyspark.ml", "pyspark.ml.feature", "pyspark.ml.classification", "pyspark.ml.regression",
    "pyspark.ml.clustering", "pyspark.ml.recommendation", "pyspark.ml.pipeline",
    "pyspark.ml.fpm", "pyspark.ml.tuning", "pyspark.ml.base", "pyspark.ml.connect",
    "pyspark.ml.connect.feature", "pyspark.ml.connect.classification",
    "pyspark.ml.connect.pipeline",
)

# What a stage's methods give back: another stage (a fitted model, a copy, a setter's self).
_STAGE_METHODS = frozenset({"fit", "load", "read", "copy"})  # and every `set...` setter


@record
class Stage:
    """A pyspark.ml Transformer, Estimator or Model (by its class name)."""

    name: str


# `model = None`, then `if exists(path): model = Model.load(path)`: where the job calls
# `model.transform(df)`, only the loaded model can be meant (None has no transform).
registry.kept(Stage)


@registry.library(*MODULES)
def stage_class(interp: Interpreter, func: FunctionRef, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    return Stage(func.name)


@registry.method(FunctionRef, "load", "read")
def stage_load(interp: Interpreter, target: FunctionRef, name: str, args: list[Any],
               kwargs: dict[str, Any], node: cst.Call) -> Any:
    """`PipelineModel.load(path)`, `Model.read()`: a stage of that class."""
    return Stage(target.name) if target.module in MODULES else registry.NEXT


@registry.method(Stage)
def stage_method(interp: Interpreter, target: Stage, name: str, args: list[Any],
                 kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "transform":
        frame = args[0] if args else kwargs.get("dataset")
        if not isinstance(frame, Plan):
            return registry.NEXT
        # Row by row, no state: the input's columns and the stage's outputs, not named here.
        return frame.then(Projection(f"{target.name}.transform", (), None, interp.loc(node)),
                          columns=None)
    if name in _STAGE_METHODS or name.startswith("set"):
        return target
    return registry.NEXT
