"""The mechanism under the sandbox's patches of pyspark: which sandbox is installed, pyspark's
own methods kept aside, and the helpers the patches share (a patched object's remembered
settings, pyspark's unpatched methods, the Spark Connect classes).
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from streamlint.spark.runtime import is_connect

if TYPE_CHECKING:
    from streamlint.spark.sandbox import Sandbox

ORIGINAL: dict[tuple[type, str], Callable[..., Any]] = {}
LOCK = threading.Lock()  # one sandbox installed at a time
ACTIVE: list[Sandbox] = []


def current() -> Sandbox:
    return ACTIVE[-1]

def state_of(obj: Any) -> dict[str, Any]:
    return obj.__dict__.setdefault("_streamlint", {"options": {}, "format": None,
                                                   "schema": None})


def pyspark_method(obj: Any, name: str) -> Callable[..., Any]:
    """pyspark's own method of `obj`'s class (classic or Connect), patched or not."""
    return ORIGINAL.get((type(obj), name)) or getattr(type(obj), name)


def load_with(reader: Any, fmt: str, path: str) -> Any:
    """pyspark's own format + load: Connect's json() and parquet() call the patched load."""
    pyspark_method(reader, "format")(reader, fmt)
    return pyspark_method(reader, "load")(reader, path)


def connect_classes() -> types.SimpleNamespace | None:
    """pyspark's Spark Connect classes when the sandbox session is one, else None."""
    if not ACTIVE or not is_connect(current().session):
        return None
    from pyspark.sql.connect import conf, readwriter, session
    from pyspark.sql.connect.streaming import query
    from pyspark.sql.connect.streaming import readwriter as streaming

    return types.SimpleNamespace(
        stream_reader=streaming.DataStreamReader, stream_writer=streaming.DataStreamWriter,
        reader=readwriter.DataFrameReader, writer=readwriter.DataFrameWriter,
        session=session.SparkSession, conf=conf.RuntimeConf, query=query.StreamingQuery,
        manager=query.StreamingQueryManager)


def patch(cls: type, name: str, replacement: Callable[..., Any]) -> None:
    ORIGINAL.setdefault((cls, name), getattr(cls, name))
    setattr(cls, name, replacement)
