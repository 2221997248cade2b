"""Run a user's job file in-process with the pyspark API patched so nothing real is touched.

While a `Sandbox` is installed:

* every streaming source (Kafka, files, Delta, tables, Auto Loader, rate, socket) becomes a JSON
  file source over a local directory with the same schema (Kafka's fixed schema; files by the
  schema the job declares; tables by `[tool.streamlint.tables]`), and every batch read becomes a
  small local DataFrame of the same schema;
* every streaming sink becomes a foreachBatch that collects the rows into Python: the user's
  foreach/foreachBatch functions never run, batch writes do nothing;
* every trigger is availableNow and every checkpointLocation a directory under the sandbox's
  work directory, keyed by the query's own checkpoint (or name, or position);
* on a Spark Connect session (`--remote`) the same patches sit on pyspark's Connect classes, and
  the sink writes each batch as parquet under the work directory (foreachBatch runs in the
  server's Python worker, not here), read back through the session after the run;
* `SparkSession.builder.getOrCreate()` returns the sandbox's session, `stop()` does nothing,
  `dbutils`, secrets, missing environment variables and `sys.argv` are stubbed with a warning.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import os
import re
import runpy
import sys
import threading
import types
import uuid
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlint.extract.pyspark_api import FILE_FORMATS as _EXTRACTED_FILE_FORMATS
from streamlint.spark.connect import is_connect
from streamlint.spark.runtime import SESSION_CONFS

STUB = "streamlint-stub"
KAFKA_SCHEMA = ("key BINARY, value BINARY, topic STRING, partition INT, offset LONG, "
                "timestamp TIMESTAMP, timestampType INT")
FILE_FORMATS = set(_EXTRACTED_FILE_FORMATS)  # the formats the static extractor knows
TABLE_FORMATS = {"delta", "iceberg", "hudi", "table"}
# Spark Connect starts a query's foreachBatch function in a new Python worker on the server and
# gives it a fixed 10 s to connect back (PythonWorkerFactory.createSimpleWorker): on a busy
# machine its imports can take longer. The query has not started then: its start is retried.
WORKER_DID_NOT_CONNECT = "Python worker failed to connect back"
WORKER_START_ATTEMPTS = 3
# Hundreds of state store partitions would make a run of a few rows take minutes: a job's own
# larger setting runs with the session's.
LOCAL_SHUFFLE_PARTITIONS = int(SESSION_CONFS["spark.sql.shuffle.partitions"])


class CannotConfirm(Exception):
    """The job cannot run in the sandbox (a table without a schema, ...): says why."""


@dataclass
class SourceSpec:
    """A source the job reads, by what it reads; its schema as Spark parses it."""

    identity: str  # "kafka:orders", "path:/data/in", "table:sales.orders"
    kind: str  # kafka | file | table | rate | socket
    schema: Any  # pyspark StructType
    topic: str = ""


@dataclass
class QueryRun:
    """One query started by a job run: its key, what it wrote per batch, how it ended."""

    key: str
    label: str
    handle: Any = None  # pyspark StreamingQuery
    start_error: BaseException | None = None
    batches: list[tuple[int, list[tuple]]] = field(default_factory=list)
    output: Path | None = None  # Spark Connect: where the server wrote each batch

    def rows(self) -> list[tuple]:
        return sorted(row for _, rows in self.batches for row in rows)


@dataclass
class Sandbox:
    """The patched world one job file runs in; `plan` mode starts no query."""

    workdir: Path
    tables: Mapping[str, str]
    pool: tuple[str, ...]
    plan: bool = False
    sources: dict[str, SourceSpec] = field(default_factory=dict)
    json_schemas: list[Any] = field(default_factory=list)
    queries: dict[str, QueryRun] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    session: Any = None
    # False: the job's own awaitTermination returns at once and `finish_job` waits instead, so
    # that another job can start meanwhile (the 2 cores are shared by two runs' tiny batches).
    wait_in_job: bool = True

    def source_dir(self, identity: str) -> Path:
        return self.workdir / "sources" / _slug(identity)

    def checkpoint(self, key: str) -> Path:
        return self.workdir / "checkpoints" / _slug(key)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    # -- sources ---------------------------------------------------------------------------

    def stand_in(self, fmt: str, path: str | None, options: Mapping[str, str], schema: Any,
                 streaming: bool = True, name: str | None = None) -> Any:
        spec = self.source_spec(fmt, path, options, schema)
        self.sources.setdefault(spec.identity, spec)
        if not streaming:
            return self._static(spec)
        directory = self.source_dir(spec.identity)
        directory.mkdir(parents=True, exist_ok=True)
        reader = self.session.readStream
        _original(reader, "schema")(reader, spec.schema)
        if name is not None:
            _original(reader, "name")(reader, name)
        return _load(reader, "json", str(directory))

    def _static(self, spec: SourceSpec) -> Any:
        from streamlint.spark.synthetic import kafka_rows, rows

        if spec.kind == "kafka":
            data = kafka_rows(spec.topic, self.value_schema(), 1, self.pool)
        else:
            data = rows(spec.schema, 1, self.pool)
        # Through JSON, as the streaming stand-ins are read: the same parsing of every type.
        if is_connect(self.session):  # no SparkContext: a file the server reads
            directory = self.workdir / "static" / _slug(spec.identity) / uuid.uuid4().hex
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "rows.json").write_text("".join(_json(r) + "\n" for r in data))
            reader = self.session.read
            _original(reader, "schema")(reader, spec.schema)
            return _load(reader, "json", str(directory))
        texts = self.session.sparkContext.parallelize([_json(r) for r in data], 1)
        from pyspark.sql.readwriter import DataFrameReader

        reader = DataFrameReader(self.session)
        _ORIGINAL[(DataFrameReader, "schema")](reader, spec.schema)
        return _ORIGINAL[(DataFrameReader, "json")](reader, texts)

    def source_spec(self, fmt: str, path: str | None, options: Mapping[str, str],
                    schema: Any) -> SourceSpec:
        fmt = fmt.lower()
        if fmt == "kafka":
            topic = (options.get("subscribe") or options.get("subscribepattern")
                     or options.get("assign") or "")
            if "subscribe" in options:  # the same topics in another order are the same source
                topic = ",".join(sorted(t.strip() for t in topic.split(",")))
            return SourceSpec(f"kafka:{topic}", "kafka", self.struct(KAFKA_SCHEMA), topic)
        if fmt == "rate":
            return SourceSpec("rate", "rate", self.struct("timestamp TIMESTAMP, value LONG"))
        if fmt == "socket":
            return SourceSpec("socket", "socket", self.struct("value STRING"))
        if fmt in TABLE_FORMATS or fmt not in FILE_FORMATS | {"cloudfiles"}:
            name = (path or options.get("path") or options.get("tablename")
                    or options.get("dbtable") or options.get("table") or fmt)
            configured = self.tables.get(name)
            if configured is None and schema is None:
                raise CannotConfirm(
                    f"no schema for table {name}: add `\"{name}\" = \"col TYPE, ...\"` to "
                    "[tool.streamlint.tables] in pyproject.toml")
            return SourceSpec(f"table:{name}", "table", self.struct(configured or schema))
        where = path or options.get("path") or ""
        if schema is None:
            if fmt == "text":
                schema = "value STRING"
            elif where in self.tables:
                schema = self.tables[where]
            else:
                raise CannotConfirm(f"no schema for the {fmt} source {where}: declare it with "
                                    ".schema(...) (streaming file sources need one) or in "
                                    "[tool.streamlint.tables]")
        return SourceSpec(f"path:{where}", "file", self.struct(schema))

    def struct(self, schema: Any) -> Any:
        from pyspark.sql.types import StructType, _parse_datatype_string

        if isinstance(schema, StructType):
            return schema
        parsed = _parse_datatype_string(str(schema))
        if not isinstance(parsed, StructType):
            raise CannotConfirm(f"not a struct schema: {schema}")
        return parsed

    def value_schema(self) -> Any:
        """Every field any from_json of the job files parses (the first type wins)."""
        from pyspark.sql.types import StructType

        fields: dict[str, Any] = {}
        for schema in self.json_schemas:
            for f in schema.fields:
                fields.setdefault(f.name, f)
        return StructType(list(fields.values()))

    # -- sinks -----------------------------------------------------------------------------

    def start(self, writer: Any, key: str, label: str) -> Any:
        run = QueryRun(key, label)
        for method in ("foreachBatch", "foreach"):
            function = (_state(writer).get(method) or (None,))[0]
            if function is not None:
                name = getattr(function, "__name__", type(function).__name__)
                self.warn(f"the {method} function {name} was not run: the rows it would "
                          "receive are compared instead")
        if key in self.queries:
            raise CannotConfirm(f"two queries share the checkpoint {key}")
        self.queries[key] = run
        if self.plan:
            return _StubQuery(label)

        def collect(batch: Any, batch_id: int) -> None:
            run.batches.append((batch_id, [_canonical_row(r) for r in batch.collect()]))

        sink: Callable[[Any, int], None] = collect
        if is_connect(self.session):
            run.output = self.workdir / "output" / _slug(key) / uuid.uuid4().hex
            sink = _parquet_sink(str(run.output))
        _original(writer, "foreachBatch")(writer, sink)
        _original(writer, "trigger")(writer, availableNow=True)
        _original(writer, "option")(writer, "checkpointLocation", str(self.checkpoint(key)))
        for attempt in range(1, WORKER_START_ATTEMPTS + 1):
            try:
                run.handle = _original(writer, "start")(writer)
                return run.handle
            except Exception as err:  # Spark refused to start it: that is the observation
                if attempt < WORKER_START_ATTEMPTS and WORKER_DID_NOT_CONNECT in str(err):
                    self.warn(f"the server's foreachBatch Python worker did not connect back "
                              f"within Spark's 10 s: the start of {label} was retried")
                    continue
                run.start_error = err
        return _StubQuery(label)

    def read_outputs(self) -> None:
        """Spark Connect: the batches the server wrote, read back through the session."""
        for run in self.queries.values():
            if run.output is None or not run.output.is_dir():
                continue
            for batch in sorted((d for d in run.output.iterdir() if d.name.isdigit()),
                                key=lambda d: int(d.name)):
                frame = _load(self.session.read, "parquet", str(batch))
                run.batches.append((int(batch.name),
                                    [_canonical_row(r) for r in frame.collect()]))


def _parquet_sink(target: str) -> Callable[[Any, int], None]:
    """A foreachBatch function for the Connect server's Python worker: it references nothing
    of streamlint (the server need not have it installed), only the target directory."""

    def write_batch(batch: Any, batch_id: int) -> None:
        batch.write.mode("overwrite").parquet(f"{target}/{batch_id}")

    return write_batch


# ---------------------------------------------------------------------------------------------
# Patching


_ORIGINAL: dict[tuple[type, str], Callable[..., Any]] = {}
_LOCK = threading.Lock()
_ACTIVE: list[Sandbox] = []


def _sandbox() -> Sandbox:
    return _ACTIVE[-1]


def _state(obj: Any) -> dict[str, Any]:
    return obj.__dict__.setdefault("_streamlint", {"options": {}, "format": None,
                                                   "schema": None})


def _slug(text: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:40]
    return f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def _json(row: Mapping[str, Any]) -> str:
    import json

    return json.dumps(row)


def _canonical_row(row: Any) -> tuple:
    return tuple(sorted((k, _canonical(v)) for k, v in row.asDict(recursive=True).items()))


def _canonical(value: Any) -> str:
    import datetime as dt

    if isinstance(value, dt.datetime):
        # Synthetic event times lie in 2024; a time near now came from the clock
        # (current_timestamp(), ingestion stamps) and differs between any two runs.
        now = dt.datetime.now(value.tzinfo) if value.tzinfo else dt.datetime.now()
        if abs((now - value).total_seconds()) < 2 * 86400:
            return "<wall clock>"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_canonical(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_canonical(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(round(value, 9))
    if isinstance(value, str):
        # input_file_name() and the like name the run's own temporary directory, which
        # differs between the restarted and the fresh run; the rest of the path is the data.
        return repr(_SANDBOX_DIR.sub("<sandbox>/", value))
    return repr(value)


_SANDBOX_DIR = re.compile(r"(?:file:)?/[^\s'\"]*?/streamlint-confirm-[^/]+/[^/]+/")


def _original(obj: Any, name: str) -> Callable[..., Any]:
    """pyspark's own method of `obj`'s class (classic or Connect), patched or not."""
    return _ORIGINAL.get((type(obj), name)) or getattr(type(obj), name)


def _load(reader: Any, fmt: str, path: str) -> Any:
    """pyspark's own format + load: Connect's json() and parquet() call the patched load."""
    _original(reader, "format")(reader, fmt)
    return _original(reader, "load")(reader, path)


def _connect_classes() -> types.SimpleNamespace | None:
    """pyspark's Spark Connect classes when the sandbox session is one, else None."""
    if not _ACTIVE or not is_connect(_sandbox().session):
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
    _ORIGINAL.setdefault((cls, name), getattr(cls, name))
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
            _state(self)["format"] = source
            return self

        def schema(self: Any, value: Any) -> Any:
            _state(self)["schema"] = value
            return self

        def option(self: Any, key: str, value: Any) -> Any:
            _state(self)["options"][key.lower()] = str(value)
            return self

        def options(self: Any, **values: Any) -> Any:
            for key, value in values.items():
                _state(self)["options"][key.lower()] = str(value)
            return self

        def load(self: Any, path: Any = None, format: str | None = None, schema: Any = None,
                 _streaming: bool = streaming, **values: Any) -> Any:
            state = _state(self)
            opts = {**state["options"], **{k.lower(): str(v) for k, v in values.items()}}
            fmt_name = format or state["format"] or "parquet"
            if isinstance(path, (list, tuple)):
                path = ",".join(map(str, path))
            return _sandbox().stand_in(fmt_name, path, opts, schema or state["schema"],
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
        _state(self)["name"] = source_name
        return self

    for cls, streaming in readers:  # Spark 4.2+: named sources, kept on the stand-in
        if streaming and hasattr(cls, "name"):
            _patch(cls, "name", name)


def _writer_patches() -> None:
    from pyspark.sql.readwriter import DataFrameWriter
    from pyspark.sql.streaming.readwriter import DataStreamWriter

    def remember(key: str) -> Callable[..., Any]:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            _state(self)[key] = args or tuple(kwargs.values())
            return self
        return method

    def option(self: Any, key: str, value: Any) -> Any:
        _state(self)["options"][key] = str(value)
        return self

    def options(self: Any, **values: Any) -> Any:
        for key, value in values.items():
            _state(self)["options"][key] = str(value)
        return self

    def output_mode(self: Any, mode: str) -> Any:
        _original(self, "outputMode")(self, mode)
        return self

    def start(self: Any, path: str | None = None, format: str | None = None,
              outputMode: str | None = None, partitionBy: Any = None,  # noqa: N803
              queryName: str | None = None, **values: Any) -> Any:  # noqa: N803
        state = _state(self)
        opts = {**state["options"], **{k: str(v) for k, v in values.items()}}
        if outputMode:
            _original(self, "outputMode")(self, outputMode)
        name = queryName or (state.get("queryName") or (None,))[0]
        sandbox = _sandbox()
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

    def to_table(self: Any, tableName: str, format: str | None = None,  # noqa: N803
                 outputMode: str | None = None, partitionBy: Any = None,  # noqa: N803
                 queryName: str | None = None, **values: Any) -> Any:  # noqa: N803
        return start(self, tableName, format, outputMode, partitionBy, queryName, **values)

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
                _patch(cls, name, remember(name))
        _patch(cls, "option", option)
        _patch(cls, "options", options)
        _patch(cls, "outputMode", output_mode)
        _patch(cls, "start", start)
        _patch(cls, "toTable", to_table)

    def no_write(name: str) -> Callable[..., Any]:
        def method(self: Any, *args: Any, **kwargs: Any) -> None:
            _sandbox().warn(f"a batch write (DataFrameWriter.{name}) was skipped: nothing is "
                            "written outside the sandbox")
        return method

    for cls in batch_writers:
        for name in ("save", "saveAsTable", "insertInto", "parquet", "json", "csv", "orc",
                     "text", "jdbc", "xml"):
            if hasattr(cls, name):
                _patch(cls, name, no_write(name))


def _session_patches() -> None:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.query import StreamingQuery, StreamingQueryManager

    def get_or_create(self: Any) -> Any:
        session = _sandbox().session
        for key, value in getattr(self, "_options", {}).items():
            if key.startswith("spark.sql."):
                session.conf.set(key, value)
        return session

    def table(self: Any, name: str) -> Any:
        return _sandbox().stand_in("table", name, {}, None, streaming=False)

    from pyspark.sql.conf import RuntimeConfig

    def conf_set(self: Any, key: str, value: Any) -> None:
        if key == "spark.sql.shuffle.partitions" and str(value).isdigit() and \
                int(value) > LOCAL_SHUFFLE_PARTITIONS:
            _sandbox().warn(f"spark.sql.shuffle.partitions {value} ran as "
                            f"{LOCAL_SHUFFLE_PARTITIONS} locally (a checkpoint pins its own "
                            "value; the results do not depend on it)")
            value = LOCAL_SHUFFLE_PARTITIONS
        _original(self, "set")(self, key, value)

    def await_termination(self: Any, timeout: Any = None) -> bool:
        if _sandbox().wait_in_job:
            with contextlib.suppress(Exception):
                _original(self, "awaitTermination")(self, timeout)
        return True

    def await_any(self: Any, timeout: Any = None) -> bool:
        for run in _sandbox().queries.values():
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
    for cls in sessions:
        _patch(cls.Builder, "getOrCreate", get_or_create)
        _patch(cls, "stop", lambda self: None)
        _patch(cls, "table", table)
    for cls in queries:
        _patch(cls, "awaitTermination", await_termination)
    for cls in managers:
        _patch(cls, "awaitAnyTermination", await_any)


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
                parsed = _sandbox().struct(schema) if isinstance(schema, str) else schema
                if type(parsed).__name__ == "ArrayType":
                    parsed = parsed.elementType
                if type(parsed).__name__ == "StructType":
                    _sandbox().json_schemas.append(parsed)
        return original(col, schema, options)

    for module in modules:
        _ORIGINAL.setdefault((module, "from_json"), original)  # type: ignore[index]
        module.from_json = from_json  # type: ignore[attr-defined]


def _install() -> None:
    _reader_patches()
    _writer_patches()
    _session_patches()
    _patch_from_json()


def _uninstall() -> None:
    for (owner, name), original in _ORIGINAL.items():
        setattr(owner, name, original)
    _ORIGINAL.clear()


# ---------------------------------------------------------------------------------------------
# Stubs for the platform: dbutils, secrets, environment, command line


class _Stub:
    """Answers any attribute or call with itself or a placeholder string, and warns."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> _Stub:
        return _Stub(f"{self._path}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _sandbox().warn(f"{self._path}() was stubbed: it returns a placeholder")
        if self._path.endswith((".get", ".getArgument", ".text", ".dropdown")):
            return STUB
        return _Stub(f"{self._path}()")

    def __str__(self) -> str:
        return STUB

    def __iter__(self) -> Iterator[Any]:
        return iter(())


class _StubEnviron(MutableMapping[str, str]):
    """os.environ where a missing variable read with [] gives a placeholder and a warning
    (`.get(key, default)` keeps its default, as the static analysis assumes)."""

    def __init__(self, real: MutableMapping[str, str], job_dir: Path) -> None:
        self.real, self.job_dir = real, str(job_dir.resolve())

    def __getitem__(self, key: str) -> str:
        try:
            return self.real[key]
        except KeyError:
            # Only the user's code gets placeholders: libraries rely on the KeyError.
            caller = Path(sys._getframe(1).f_code.co_filename)
            if not caller.is_file() or str(caller.resolve().parent) != self.job_dir:
                raise
            _sandbox().warn(f"environment variable {key} is not set: stubbed with '{STUB}'")
            return STUB

    def __setitem__(self, key: str, value: str) -> None:
        self.real[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self.real

    def __delitem__(self, key: str) -> None:
        del self.real[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.real)

    def __len__(self) -> int:
        return len(self.real)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self.real.get(key, default)

    def copy(self) -> dict[str, str]:
        return dict(self.real)


class _StubArgv(list):  # type: ignore[type-arg]
    """sys.argv without arguments, where `sys.argv[i]` past the end gives a placeholder and a
    warning (jobs read their settings positionally); len, slices and iteration stay honest,
    so argparse sees no arguments."""

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int) and index >= len(self):
            _sandbox().warn(f"command-line argument sys.argv[{index}] was stubbed with "
                            f"'{STUB}'")
            return STUB
        return super().__getitem__(index)


class _StubQuery:
    """What start() returns when no query runs (plan mode, or Spark refused to start it)."""

    def __init__(self, label: str) -> None:
        self.name = label
        self.id = self.runId = label
        self.isActive = False
        self.lastProgress = None
        self.recentProgress: list[Any] = []
        self.status: dict[str, Any] = {}

    def awaitTermination(self, timeout: Any = None) -> bool:  # noqa: N802 - pyspark's name
        return True

    def stop(self) -> None:
        return None

    def exception(self) -> None:
        return None

    def processAllAvailable(self) -> None:  # noqa: N802 - pyspark's name
        return None


def _lenient_parse(original: Callable[..., Any]) -> Callable[..., Any]:
    """argparse that gives required options and positionals a placeholder, with a warning."""

    def parse_known_args(self: argparse.ArgumentParser, args: Any = None,
                         namespace: Any = None) -> Any:
        for action in self._actions:
            if action.required or (not action.option_strings and action.nargs is None
                                   and action.default is None):
                if action.required or not action.option_strings:
                    _sandbox().warn(f"command-line argument {action.dest} was stubbed")
                action.required = False
                if not action.option_strings:
                    action.nargs = "?"
                if action.default is None:
                    action.default = STUB
        return original(self, args, namespace)

    return parse_known_args


def _fake_delta() -> dict[str, types.ModuleType]:
    """`delta` (delta-spark) where it is not installed: jobs import DeltaTable for the merges
    in their foreachBatch functions, which the sandbox does not run."""
    delta = types.ModuleType("delta")
    tables = types.ModuleType("delta.tables")
    tables.DeltaTable = _Stub("DeltaTable")  # type: ignore[attr-defined]
    delta.tables = tables  # type: ignore[attr-defined]
    delta.DeltaTable = tables.DeltaTable  # type: ignore[attr-defined]
    delta.configure_spark_with_delta_pip = (  # type: ignore[attr-defined]
        lambda builder, *args, **kwargs: builder)
    return {"delta": delta, "delta.tables": tables}


@contextlib.contextmanager
def _platform_stubs(job: Path) -> Iterator[dict[str, Any]]:
    saved_argv, saved_environ = sys.argv, os.environ
    saved_parse = argparse.ArgumentParser.parse_known_args
    dbutils_module = types.ModuleType("pyspark.dbutils")
    dbutils_module.DBUtils = lambda *a, **k: _Stub("dbutils")  # type: ignore[attr-defined]
    saved_module = sys.modules.get("pyspark.dbutils")
    sys.modules["pyspark.dbutils"] = dbutils_module
    fake_delta = _fake_delta() if importlib.util.find_spec("delta") is None else {}
    sys.modules.update(fake_delta)
    sys.argv = _StubArgv([str(job)])
    # Replaced, not cleared: the stub reads through to the real environment.
    os.environ = _StubEnviron(saved_environ, job.parent)  # type: ignore[assignment]  # noqa: B003
    argparse.ArgumentParser.parse_known_args = _lenient_parse(  # type: ignore[method-assign]
        saved_parse)
    # As `python job.py` runs it: helper modules next to the job import.
    sys.path.insert(0, str(job.parent.resolve()))
    try:
        yield {"dbutils": _Stub("dbutils"), "display": lambda *a, **k: None}
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(job.parent.resolve()))
        sys.argv, os.environ = saved_argv, saved_environ
        argparse.ArgumentParser.parse_known_args = saved_parse  # type: ignore[method-assign]
        for name in fake_delta:
            sys.modules.pop(name, None)
        if saved_module is None:
            sys.modules.pop("pyspark.dbutils", None)
        else:
            sys.modules["pyspark.dbutils"] = saved_module


# ---------------------------------------------------------------------------------------------
# Running one job file


@dataclass
class JobRun:
    """What happened when a job file ran: its queries, or the error that stopped the file."""

    queries: dict[str, QueryRun]
    error: BaseException | None
    timed_out: bool = False


def run_job(sandbox: Sandbox, job: Path, timeout: float) -> JobRun:
    """Execute `job` as `__main__` in `sandbox`, then wait for every query it started."""
    return finish_job(start_job(sandbox, job, timeout))


@dataclass
class StartedJob:
    """A job file that has run up to its queries' start; `finish_job` waits for them."""

    sandbox: Sandbox
    error: BaseException | None
    timer: threading.Timer


def start_job(sandbox: Sandbox, job: Path, timeout: float) -> StartedJob:
    """Execute `job` as `__main__` in `sandbox` (the patches are global: one job at a time).
    With `sandbox.wait_in_job` off, its queries are still running when this returns."""
    with _LOCK:
        _ACTIVE.append(sandbox)
        _install()
        error: BaseException | None = None
        timer = threading.Timer(timeout, _stop_all, args=(sandbox,))
        timer.daemon = True
        timer.start()
        try:
            with _platform_stubs(job) as stubs:
                source = job.read_text(encoding="utf-8", errors="replace")
                stubs.update(_notebook_globals(sandbox, source))
                _state_store_for(sandbox, source)
                try:
                    runpy.run_path(str(job), init_globals=stubs, run_name="__main__")
                except SystemExit as err:
                    if err.code not in (None, 0):
                        error = err
                except CannotConfirm:
                    raise
                except Exception as err:
                    error = err
        except BaseException:  # CannotConfirm, an interrupt: nothing is left running
            timer.cancel()
            _stop_all(sandbox, fired=False)
            raise
        finally:
            _uninstall()
            _ACTIVE.pop()
    return StartedJob(sandbox, error, timer)


def finish_job(started: StartedJob) -> JobRun:
    """Wait for every query the job started (the timer stops them at the timeout)."""
    sandbox = started.sandbox
    try:
        for run in sandbox.queries.values():
            if run.handle is not None:
                with contextlib.suppress(Exception):
                    run.handle.awaitTermination()
        if not sandbox.plan:
            sandbox.read_outputs()
    finally:
        started.timer.cancel()
        timed_out = _fired(sandbox)
        _stop_all(sandbox, fired=False)
    return JobRun(sandbox.queries, started.error, timed_out)


def _notebook_globals(sandbox: Sandbox, source: str) -> dict[str, Any]:
    """`spark` and `sc` predefined, as in a Databricks notebook, for a job that uses `spark`
    without ever defining it (a notebook exported as a .py file)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
               and not isinstance(n.ctx, ast.Load)}
    defined |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    defined |= {n.name for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    defined |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                for a in [*n.posonlyargs, *n.args, *n.kwonlyargs]}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}
    if "spark" not in used - defined or sandbox.session is None:
        return {}
    sandbox.warn("the job uses `spark` without defining it (a Databricks notebook): "
                 "`spark`, `sc`, `display` and `dbutils` were predefined as Databricks does")
    if is_connect(sandbox.session):  # Spark Connect has no SparkContext
        return {"spark": sandbox.session}
    return {"spark": sandbox.session, "sc": sandbox.session.sparkContext}


PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def _state_store_for(sandbox: Sandbox, source: str) -> None:
    """transformWithState runs only on the RocksDB state store (the default one refuses it
    with STORE_BACKEND_NOT_SUPPORTED_FOR_TWS); a job that uses it runs on a cluster where
    RocksDB is configured, so the sandbox configures it too (the job's own setting wins)."""
    if "transformWithState" not in source or sandbox.session is None:
        return
    sandbox.session.conf.set(PROVIDER, ROCKSDB)
    sandbox.warn("the job uses transformWithState: the RocksDB state store provider was "
                 "configured, as transformWithState requires")


def cancel_job(started: StartedJob) -> None:
    """Stop the queries of a job whose outcome is no longer needed."""
    started.timer.cancel()
    _stop_all(started.sandbox, fired=False)


def _fired(sandbox: Sandbox) -> bool:
    return any(w.startswith("timed out") for w in sandbox.warnings)


def _stop_all(sandbox: Sandbox, fired: bool = True) -> None:
    if fired:
        sandbox.warn("timed out: the run was stopped")
    for run in sandbox.queries.values():
        if run.handle is not None:
            with contextlib.suppress(Exception):
                run.handle.stop()
