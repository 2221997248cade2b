"""The stream writer patched while a sandbox is installed: its settings are remembered, every
sink becomes the sandbox's collecting stand-in (`start`, `toTable`), and batch writes are
skipped, their schemas kept for a later read of what they would have written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from streamlint.model.identity import started_key
from streamlint.spark.patching import connect_classes, current, patch, pyspark_method, state_of
from streamlint.spark.stubs import stable_path


def _remember(key: str) -> Callable[..., Any]:
    """A writer method whose arguments are kept (`format`, `trigger`, `queryName`, ...)."""
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        state_of(self)[key] = args or tuple(kwargs.values())
        return self
    return method


def _option(self: Any, key: str, value: Any) -> Any:
    state_of(self)["options"][key] = str(value)
    return self


def _options(self: Any, **values: Any) -> Any:
    for key, value in values.items():
        state_of(self)["options"][key] = str(value)
    return self


def _output_mode(self: Any, mode: str) -> Any:
    pyspark_method(self, "outputMode")(self, mode)
    return self


def _start(self: Any, path: str | None = None, format: str | None = None,
           outputMode: str | None = None, partitionBy: Any = None,  # noqa: N803
           queryName: str | None = None, **values: Any) -> Any:  # noqa: N803
    """A stream writer's `start`: the sandbox starts the query under the key the static
    pairing would give it."""
    state = state_of(self)
    opts = {**state["options"], **{k: str(v) for k, v in values.items()}}
    if outputMode:
        pyspark_method(self, "outputMode")(self, outputMode)
    name = queryName or (state.get("queryName") or (None,))[0]
    sandbox = current()
    checkpoint = opts.get("checkpointLocation")
    if checkpoint is None and sandbox.session is not None:
        root = sandbox.session.conf.get("spark.sql.streaming.checkpointLocation", None)
        if root and name:
            checkpoint = f"{root.rstrip('/')}/{name}"
    checkpoint = stable_path(checkpoint) if checkpoint else checkpoint
    position = len(sandbox.queries)
    target = path or opts.get("path")
    target = stable_path(target) if isinstance(target, str) else target
    # One of the keys the static reading gives the query (model/identity.py `run_keys`).
    key = started_key(checkpoint, name, target, position)
    label = name or checkpoint or target or f"query #{position + 1}"
    frame = getattr(self, "_df", None)
    if isinstance(target, str) and frame is not None:
        # A later stream over this table or path (the next layer of a medallion) reads this.
        with contextlib.suppress(Exception):
            sandbox.written.setdefault(target, frame.schema)
    return sandbox.start(self, key, str(label))


def _to_table(self: Any, tableName: str, format: str | None = None,  # noqa: N803
              outputMode: str | None = None, partitionBy: Any = None,  # noqa: N803
              queryName: str | None = None, **values: Any) -> Any:  # noqa: N803
    return _start(self, tableName, format, outputMode, partitionBy, queryName, **values)


def install_writer_patches() -> None:
    from pyspark.sql.readwriter import DataFrameWriter
    from pyspark.sql.streaming.readwriter import DataStreamWriter

    stream_writers: list[type] = [DataStreamWriter]
    batch_writers: list[type] = [DataFrameWriter]
    connect = connect_classes()
    if connect is not None:
        stream_writers.append(connect.stream_writer)
        batch_writers.append(connect.writer)
    for cls in stream_writers:
        for name in ("format", "trigger", "foreach", "foreachBatch", "partitionBy",
                     "clusterBy", "queryName"):
            if hasattr(cls, name):
                patch(cls, name, _remember(name))
        patch(cls, "option", _option)
        patch(cls, "options", _options)
        patch(cls, "outputMode", _output_mode)
        patch(cls, "start", _start)
        patch(cls, "toTable", _to_table)

    for cls in batch_writers:
        for name in ("save", "saveAsTable", "insertInto", "parquet", "json", "csv", "orc",
                     "text", "jdbc", "xml"):
            if hasattr(cls, name):
                patch(cls, name, _skipped_write(name))


def _skipped_write(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> None:
        current().warn(f"a batch write (DataFrameWriter.{name}) was skipped: nothing is "
                       "written outside the sandbox")
        # What it would have written: a later read of that table or path (the job's own
        # stream over the table it just created) gets this schema.
        target = args[0] if args else (kwargs.get("path") or kwargs.get("name")
                                       or kwargs.get("tableName"))
        frame = getattr(self, "_df", None)
        if isinstance(target, str) and frame is not None:
            with contextlib.suppress(Exception):
                current().written[target] = frame.schema
    return method
