"""The pyspark API patched while a sandbox is installed: sources become local stand-ins,
sinks collect rows, the session and its queries answer as the sandbox says.

The patches are process-wide (pyspark's classes are): `active()` installs them for one sandbox
at a time, under a lock, and restores pyspark's own methods when it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from streamlint.spark.avro import stand_ins
from streamlint.spark.parameters import current_parameters
from streamlint.spark.patching import (
    ACTIVE,
    LOCK,
    ORIGINAL,
    connect_classes,
    current,
    patch,
    pyspark_method,
    state_of,
)
from streamlint.spark.runtime import SESSION_CONFS
from streamlint.spark.writer_patches import install_writer_patches

if TYPE_CHECKING:
    from streamlint.spark.sandbox import Sandbox

# Hundreds of state store partitions would make a run of a few rows take minutes: a job's own
# larger setting runs with the session's.
LOCAL_SHUFFLE_PARTITIONS = int(SESSION_CONFS["spark.sql.shuffle.partitions"])

def _reader_patches() -> None:
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.streaming.readwriter import DataStreamReader

    readers: list[tuple[type, bool]] = [(DataStreamReader, True), (DataFrameReader, False)]
    connect = connect_classes()
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

        patch(cls, "format", fmt)
        patch(cls, "schema", schema)
        patch(cls, "option", option)
        patch(cls, "options", options)
        patch(cls, "load", load)
        patch(cls, "table", table)
        for name in ("json", "parquet", "csv", "orc", "text", "xml"):
            if hasattr(cls, name):
                patch(cls, name, by_format(name))
    def name(self: Any, source_name: str) -> Any:
        state_of(self)["name"] = source_name
        return self

    for cls, streaming in readers:  # Spark 4.2+: named sources, kept on the stand-in
        if streaming and hasattr(cls, "name"):
            patch(cls, "name", name)


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
        given = current_parameters().conf(key)
        if isinstance(given, str):  # as the static reading reads it (extract/bundles.py)
            current().warn(f"spark.conf.get({key!r}) took the value the job's bundle gives "
                           f"it: {given!r}")
            return given
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
        with contextlib.suppress(Exception):  # bounded: what is there now, not forever
            pyspark_method(self, "processAllAvailable")(self)
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
    connect = connect_classes()
    if connect is not None:
        sessions.append(connect.session)
        confs.append(connect.conf)
        queries.append(connect.query)
        managers.append(connect.manager)
    for cls in confs:
        patch(cls, "set", conf_set)
        patch(cls, "get", conf_get)
    for cls in sessions:
        patch(cls.Builder, "getOrCreate", get_or_create)
        patch(cls, "stop", lambda self: None)
        patch(cls, "table", table)
    for cls in queries:
        patch(cls, "awaitTermination", await_termination)
        patch(cls, "stop", query_stop)
    for cls in managers:
        patch(cls, "awaitAnyTermination", await_any)


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

    patch(SparkContext, "__init__", init)
    patch(SparkContext, "stop", lambda self: None)


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

    from_avro, to_avro = stand_ins((avro.from_avro, avro.to_avro),
                                   lambda message: current().warn(message))
    patch(avro, "from_avro", from_avro)  # type: ignore[arg-type]
    patch(avro, "to_avro", to_avro)  # type: ignore[arg-type]


def install() -> None:
    _reader_patches()
    install_writer_patches()
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
    with LOCK:
        ACTIVE.append(sandbox)
        install()
        try:
            yield
        finally:
            uninstall()
            ACTIVE.pop()
