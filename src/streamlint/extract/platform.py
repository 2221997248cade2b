"""Notebook globals: Databricks' `display()`, which starts streaming queries, and widgets.

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

from streamlint.extract import bundles, registry
from streamlint.extract.pyspark_api.writer import start, trigger_of
from streamlint.extract.spark_values import Plan, Writer
from streamlint.extract.values import FunctionRef
from streamlint.model import Unknown

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


WIDGET_DECLARATIONS = ("text", "dropdown", "combobox", "multiselect")


def widget_call(interp: Interpreter, name: str, args: list[Any], kwargs: dict[str, Any],
                node: cst.Call) -> Any:
    """`dbutils.widgets.text("chk", "/mnt/chk")` declares a parameter and its default, and
    `dbutils.widgets.get("chk")` reads it: the default unless the job is given a value, like
    `os.environ.get(key, default)` (an `EnvDefault`), unless the job's Databricks bundle
    sets it (extract/bundles.py). A widget with no default it can see stays unknown."""
    if name in WIDGET_DECLARATIONS:
        key = args[0] if args else kwargs.get("name")
        default = args[1] if len(args) > 1 else kwargs.get("defaultValue")
        if isinstance(key, str):
            _widgets(interp)[key] = default
        return None
    if name in ("get", "getArgument"):
        key = args[0] if args else kwargs.get("name")
        default = _widgets(interp).get(key) if isinstance(key, str) else None
        if not isinstance(key, str):
            return Unknown(interp.code(node))
        given = bundles.setting(bundles.of_loader(interp.loader), "widget", key, default)
        return bundles.parameter(given,
                        default, f"widget {key!r}",
                        # However a notebook reaches it (`dbutils.widgets`, `W =
                        # dbutils.widgets`), a widget is one run-time value, named by its key.
                        Unknown(f"dbutils.widgets.get({key!r})"))
    return Unknown(interp.code(node))


def _widgets(interp: Interpreter) -> dict[str, Any]:
    """The widgets a notebook declared in this run, with their defaults (made on first use)."""
    widgets: dict[str, Any] = vars(interp.ext).setdefault("widgets", {})
    return widgets
