"""Notebook globals: Databricks' `display()`, which starts streaming queries (widgets are
extract/widgets.py).

`display(streaming_df)` in a Databricks notebook starts a streaming query that feeds the
cell's output. Given `checkpointLocation=`, that query restarts from its checkpoint like any
other, so it is a query here (format "display"). Without one, Databricks gives each run a
fresh temporary checkpoint: nothing carries over a restart, so there is nothing to be
compatible with; the stream is consumed (never "reaches no sink") but is no query.
`dbutils.notebook.exit()` is an ordinary unknown call: an exit is usually conditional (no
new data), so the queries after it still run on other days and are still checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.pyspark_api.writer import start, trigger_of
from streamlint.extract.spark_values import Plan, Writer
from streamlint.extract.values import FunctionRef

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


# A Databricks notebook's `display`, defined in every notebook without an import.
registry.predefined("display", "databricks.notebook")


@registry.library("databricks.notebook")
def notebook_call(interp: Interpreter, func: FunctionRef, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    return display(interp, args, kwargs, node) if func.name == "display" else None


def display(interp: Interpreter, args: list[Any], kwargs: dict[str, Any],
            node: cst.Call) -> Any:
    frame = args[0] if args else kwargs.get("df")
    if not (isinstance(frame, Plan) and frame.streaming and frame.sources):
        return None
    checkpoint = kwargs.get("checkpointLocation")
    loc = interp.loc(node)
    if checkpoint is None:
        interp.effects.consumed.update(s.loc for s in frame.sources)
        return None
    # Databricks: display(df, streamName=, processingTime=, checkpointLocation=).
    writer = Writer(frame, loc, format="display",
                    options=(("checkpointLocation", checkpoint),),
                    query_name=kwargs.get("streamName"), checkpoint_loc=loc,
                    trigger=trigger_of([], {k: v for k, v in kwargs.items()
                                            if k in ("processingTime", "once", "availableNow")}))
    return start(interp, writer, "start", [], {}, node, loc)
