"""The pyspark API patched while a sandbox is installed: sources become local stand-ins,
sinks collect rows, the session and its queries answer as the sandbox says.

The patches are process-wide (pyspark's classes are): `active()` installs them for one sandbox
at a time, under a lock, and restores pyspark's own methods when it ends.
"""

from __future__ import annotations

import contextlib
import threading
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from streamlint.spark.runtime import SESSION_CONFS, is_connect

if TYPE_CHECKING:
    from streamlint.spark.sandbox import Sandbox

# Hundreds of state store partitions would make a run of a few rows take minutes: a job's own
# larger setting runs with the session's.
LOCAL_SHUFFLE_PARTITIONS = int(SESSION_CONFS["spark.sql.shuffle.partitions"])

ORIGINAL: dict[tuple[type, str], Callable[..., Any]] = {}
_LOCK = threading.Lock()
_ACTIVE: list[Sandbox] = []


def current() -> Sandbox:
    return _ACTIVE[-1]

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


def _connect_classes() -> types.SimpleNamespace | None:
    """pyspark's Spark Connect classes when the sandbox session is one, else None."""
    if not _ACTIVE or not is_connect(current().session):
        return None
    from pyspark.sql.connect import conf, readwriter, session
    from pyspark.sql.connect.streaming import query
    from pyspark.sql.connect.streaming import readwriter as streaming

    return types.SimpleNamespace(
        stream_reader=streaming.DataStreamReader, stream_writer=streaming.DataStreamWriter,
        reader=readwriter.DataFrameReader, writer=readwriter.DataFrameWriter,
        session=session.SparkSession, conf=conf.RuntimeConf, query=query.StreamingQuery,
        manager=query.StreamingQueryManager)


def _patch(cls: type, name: str, replacement: Callable[..., Any]) -> None:
    ORIGINAL.setdefault((cls, name), getattr(cls, name))
    setattr(cls, name, replacement)


def _reader_patches() -> None:
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.streaming.readwriter import DataStreamReader

    readers: list[tuple[type, bool]] = [(DataStreamReader, True), (DataFrameReader, False)]
    connect = _connect_classes()
    if connect is not None:
        readers += [(connect.stream_reader, True), (connect.reader, False)]
    for cls, streaming in readers:
        def fmt(self: Any, source: str) -> Any:
            state_of(self)["format"] = source
            return self

        def schema(self: Any, value: Any) -> Any:
            state_of(self)["schema"] = value
            return self

        def option(self: Any, key: str, value: Any) -> Any:
            state_of(self)["options"][key.lower()] = str(value)
            return self

        def options(self: Any, **values: Any) -> Any:
            for key, value in values.items():
                state_of(self)["options"][key.lower()] = str(value)
            return self

        def load(self: Any, path: Any = None, format: str | None = None, schema: Any = None,
                 _streaming: bool = streaming, **values: Any) -> Any:
            state = state_of(self)
            opts = {**state["options"], **{k.lower(): str(v) for k, v in values.items()}}
            fmt_name = format or state["format"] or "parquet"
            if isinstance(path, (list, tuple)):
                path = ",".join(map(str, path))
            return current().stand_in(fmt_name, path, opts, schema or state["schema"],
                                       _streaming, state.get("name"))

        def by_format(name: str) -> Callable[..., Any]:
            def read(self: Any, path: Any = None, schema: Any = None, **values: Any) -> Any:
                return self.load(path, format=name, schema=schema, **values)
            return read

        def table(self: Any, tableName: str) -> Any:  # noqa: N803 - pyspark's name
            return self.load(tableName, format="table")

        _patch(cls, "format", fmt)
        _patch(cls, "schema", schema)
        _patch(cls, "option", option)
        _patch(cls, "options", options)
        _patch(cls, "load", load)
        _patch(cls, "table", table)
        for name in ("json", "parquet", "csv", "orc", "text", "xml"):
            if hasattr(cls, name):
                _patch(cls, name, by_format(name))
    def name(self: Any, source_name: str) -> Any:
        state_of(self)["name"] = source_name
        return self

    for cls, streaming in readers:  # Spark 4.2+: named sources, kept on the stand-in
        if streaming and hasattr(cls, "name"):
            _patch(cls, "name", name)


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
    position = len(sandbox.queries)
    target = path or opts.get("path")
    # As the static pairing: checkpoint, then name, then sink target, then position.
    key = (f"checkpoint:{checkpoint}" if checkpoint else
           f"name:{name}" if name else f"target:{target}" if target else
           f"position:{position}")
    label = name or checkpoint or target or f"query #{position + 1}"
    return sandbox.start(self, key, str(label))


def _to_table(self: Any, tableName: str, format: str | None = None,  # noqa: N803
              outputMode: str | None = None, partitionBy: Any = None,  # noqa: N803
              queryName: str | None = None, **values: Any) -> Any:  # noqa: N803
    return _start(self, tableName, format, outputMode, partitionBy, queryName, **values)


def _writer_patches() -> None:
    from pyspark.sql.readwriter import DataFrameWriter
    from pyspark.sql.streaming.readwriter import DataStreamWriter

    stream_writers: list[type] = [DataStreamWriter]
    batch_writers: list[type] = [DataFrameWriter]
    connect = _connect_classes()
    if connect is not None:
        stream_writers.append(connect.stream_writer)
        batch_writers.append(connect.writer)
    for cls in stream_writers:
        for name in ("format", "trigger", "foreach", "foreachBatch", "partitionBy",
                     "clusterBy", "queryName"):
            if hasattr(cls, name):
                _patch(cls, name, _remember(name))
        _patch(cls, "option", _option)
        _patch(cls, "options", _options)
        _patch(cls, "outputMode", _output_mode)
        _patch(cls, "start", _start)
        _patch(cls, "toTable", _to_table)

    for cls in batch_writers:
        for name in ("save", "saveAsTable", "insertInto", "parquet", "json", "csv", "orc",
                     "text", "jdbc", "xml"):
            if hasattr(cls, name):
                _patch(cls, name, _skipped_write(name))


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


def get_or_create(self: Any) -> Any:
    """`SparkSession.builder...getOrCreate()`: the sandbox's session, with the builder's
    `spark.sql.*` settings applied as a job's own `spark.conf.set` would."""
    session = current().session
    for key, value in getattr(self, "_options", {}).items():
        if key.startswith("spark.sql."):
            session.conf.set(key, value)
    return session


def catalog_setup(key: str) -> bool:
    """Settings that install a cluster's libraries (Delta's catalog and extensions): their
    classes are not on the local classpath, and the stand-in sources and sinks do not need
    them."""
    return key == "spark.sql.extensions" or key.startswith("spark.sql.catalog.")


def conf_set(self: Any, key: str, value: Any) -> None:
    """`spark.conf.set`: a cluster's library settings skipped, shuffle partitions kept small,
    a static setting left as the local session has it; each said in a warning."""
    if catalog_setup(key):
        current().warn(f"{key} ({value}) names a cluster's library: not set locally (the "
                       "stand-in sources and sinks do not use it)")
        return
    if key == "spark.sql.shuffle.partitions" and str(value).isdigit() and \
            int(value) > LOCAL_SHUFFLE_PARTITIONS:
        current().warn(f"spark.sql.shuffle.partitions {value} ran as "
                       f"{LOCAL_SHUFFLE_PARTITIONS} locally (a checkpoint pins its own "
                       "value; the results do not depend on it)")
        value = LOCAL_SHUFFLE_PARTITIONS
    try:
        pyspark_method(self, "set")(self, key, value)
    except Exception as err:
        if "CANNOT_MODIFY" not in str(err) and "Cannot modify" not in str(err):
            raise
        # A static setting (spark.sql.extensions, a catalog) is the cluster's, fixed when
        # it starts: the local session keeps its own, as a running cluster would.
        current().warn(f"{key} is a static Spark setting: the local session kept its own "
                       "(the job's value takes effect only when a cluster starts)")


_UNSET = object()


def conf_get(self: Any, key: str, default: Any = _UNSET) -> Any:
    """`spark.conf.get(key)` of a setting the cluster or the pipeline defines (a pipeline's
    configuration, a cluster's Spark conf): a placeholder with a warning, as for a missing
    environment variable, instead of SQL_CONF_NOT_FOUND."""
    get = pyspark_method(self, "get")
    if default is not _UNSET:
        return get(self, key, default)
    try:
        return get(self, key)
    except Exception as err:
        if "SQL_CONF_NOT_FOUND" not in str(err) and "NoSuchElement" not in str(err):
            raise
        current().warn(f"spark.conf.get({key!r}) is not set here (a cluster's or pipeline's "
                       "setting): it was given 'streamlint-stub'")
        return "streamlint-stub"


def _session_patches() -> None:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.query import StreamingQuery, StreamingQueryManager


    def table(self: Any, name: str) -> Any:
        return current().stand_in("table", name, {}, None, streaming=False)

    from pyspark.sql.conf import RuntimeConfig

    def await_termination(self: Any, timeout: Any = None) -> bool:
        if current().wait_in_job:
            with contextlib.suppress(Exception):
                pyspark_method(self, "awaitTermination")(self, timeout)
        return True

    def query_stop(self: Any) -> None:
        # `q.awaitTermination(10); q.stop()`: on real input the query had those seconds to
        # process what was there; the stand-in's batches are processed before it stops.
        with contextlib.suppress(Exception):
            pyspark_method(self, "awaitTermination")(self)
        pyspark_method(self, "stop")(self)

    def await_any(self: Any, timeout: Any = None) -> bool:
        for run in current().queries.values():
            if run.handle is not None:
                await_termination(run.handle)
        return True

    sessions: list[type] = [SparkSession]
    confs: list[type] = [RuntimeConfig]
    queries: list[type] = [StreamingQuery]
    managers: list[type] = [StreamingQueryManager]
    connect = _connect_classes()
    if connect is not None:
        sessions.append(connect.session)
        confs.append(connect.conf)
        queries.append(connect.query)
        managers.append(connect.manager)
    for cls in confs:
        _patch(cls, "set", conf_set)
        _patch(cls, "get", conf_get)
    for cls in sessions:
        _patch(cls.Builder, "getOrCreate", get_or_create)
        _patch(cls, "stop", lambda self: None)
        _patch(cls, "table", table)
    for cls in queries:
        _patch(cls, "awaitTermination", await_termination)
        _patch(cls, "stop", query_stop)
    for cls in managers:
        _patch(cls, "awaitAnyTermination", await_any)


def _context_patches() -> None:
    """`SparkContext()` in a job (an old style before SparkSession): the sandbox's context,
    not a second one in the JVM (which Spark refuses); `sc.stop()` does nothing, like the
    session's."""
    from pyspark import SparkContext

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        active = SparkContext._active_spark_context
        if active is None:
            ORIGINAL[(SparkContext, "__init__")](self, *args, **kwargs)
            return
        self.__dict__.update(active.__dict__)

    _patch(SparkContext, "__init__", init)
    _patch(SparkContext, "stop", lambda self: None)


def _patch_from_json() -> None:
    import pyspark.sql.functions as functions

    modules = [functions]
    with contextlib.suppress(ImportError):
        import pyspark.sql.functions.builtin as builtin

        modules.append(builtin)
    original = functions.from_json

    def from_json(col: Any, schema: Any, options: Any = None) -> Any:
        if isinstance(schema, str) or type(schema).__name__ in ("StructType", "ArrayType"):
            with contextlib.suppress(Exception):
                parsed = current().struct(schema) if isinstance(schema, str) else schema
                if type(parsed).__name__ == "ArrayType":
                    parsed = parsed.elementType
                if type(parsed).__name__ == "StructType":
                    current().json_schemas.append(parsed)
        return original(col, schema, options)

    for module in modules:
        ORIGINAL.setdefault((module, "from_json"), original)  # type: ignore[index]
        module.from_json = from_json  # type: ignore[attr-defined]


def _patch_avro() -> None:
    """from_avro / to_avro through JSON (`streamlint.spark.avro`), after from_json's patch."""
    try:
        import pyspark.sql.avro.functions as avro
    except ImportError:
        return
    from streamlint.spark.avro import stand_ins

    from_avro, to_avro = stand_ins((avro.from_avro, avro.to_avro),
                                   lambda message: current().warn(message))
    _patch(avro, "from_avro", from_avro)  # type: ignore[arg-type]
    _patch(avro, "to_avro", to_avro)  # type: ignore[arg-type]


def install() -> None:
    _reader_patches()
    _writer_patches()
    _session_patches()
    _context_patches()
    _patch_from_json()
    _patch_avro()


def uninstall() -> None:
    for (owner, name), original in ORIGINAL.items():
        setattr(owner, name, original)
    ORIGINAL.clear()


@contextlib.contextmanager
def active(sandbox: Sandbox) -> Iterator[None]:
    """pyspark patched for `sandbox` while the block runs (one sandbox at a time)."""
    with _LOCK:
        _ACTIVE.append(sandbox)
        install()
        try:
            yield
        finally:
            uninstall()
            _ACTIVE.pop()
