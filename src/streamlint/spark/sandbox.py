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
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlint.extract.pyspark_api import FILE_FORMATS as _EXTRACTED_FILE_FORMATS

STUB = "streamlint-stub"
KAFKA_SCHEMA = ("key BINARY, value BINARY, topic STRING, partition INT, offset LONG, "
                "timestamp TIMESTAMP, timestampType INT")
FILE_FORMATS = set(_EXTRACTED_FILE_FORMATS)  # the formats the static extractor knows
TABLE_FORMATS = {"delta", "iceberg", "hudi", "table"}
# Hundreds of state store partitions would make a run of a few rows take minutes.
LOCAL_SHUFFLE_PARTITIONS = 2


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
        from pyspark.sql.streaming.readwriter import DataStreamReader

        reader = DataStreamReader(self.session)
        _ORIGINAL[(DataStreamReader, "schema")](reader, spec.schema)
        if name is not None:
            _ORIGINAL[(DataStreamReader, "name")](reader, name)
        return _ORIGINAL[(DataStreamReader, "json")](reader, str(directory))

    def _static(self, spec: SourceSpec) -> Any:
        from streamlint.spark.synthetic import kafka_rows, rows

        if spec.kind == "kafka":
            data = kafka_rows(spec.topic, self.value_schema(), 1, self.pool)
        else:
            data = rows(spec.schema, 1, self.pool)
        # Through JSON, as the streaming stand-ins are read: the same parsing of every type.
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
        from pyspark.sql.streaming.readwriter import DataStreamWriter

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

        original = _ORIGINAL
        original[(DataStreamWriter, "foreachBatch")](writer, collect)
        original[(DataStreamWriter, "trigger")](writer, availableNow=True)
        original[(DataStreamWriter, "option")](writer, "checkpointLocation",
                                               str(self.checkpoint(key)))
        try:
            run.handle = original[(DataStreamWriter, "start")](writer)
        except Exception as err:  # Spark refused to start it: that is the observation
            run.start_error = err
            return _StubQuery(label)
        return run.handle


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


def _patch(cls: type, name: str, replacement: Callable[..., Any]) -> None:
    _ORIGINAL.setdefault((cls, name), getattr(cls, name))
    setattr(cls, name, replacement)


def _reader_patches() -> None:
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.streaming.readwriter import DataStreamReader

    for cls, streaming in ((DataStreamReader, True), (DataFrameReader, False)):
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
    if hasattr(DataStreamReader, "name"):  # Spark 4.2+: named sources, kept on the stand-in
        def name(self: Any, source_name: str) -> Any:
            _state(self)["name"] = source_name
            return self

        _patch(DataStreamReader, "name", name)


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
        _ORIGINAL[(DataStreamWriter, "outputMode")](self, mode)
        return self

    def start(self: Any, path: str | None = None, format: str | None = None,
              outputMode: str | None = None, partitionBy: Any = None,  # noqa: N803
              queryName: str | None = None, **values: Any) -> Any:  # noqa: N803
        state = _state(self)
        opts = {**state["options"], **{k: str(v) for k, v in values.items()}}
        if outputMode:
            _ORIGINAL[(DataStreamWriter, "outputMode")](self, outputMode)
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

    for name in ("format", "trigger", "foreach", "foreachBatch", "partitionBy", "clusterBy",
                 "queryName"):
        if hasattr(DataStreamWriter, name):
            _patch(DataStreamWriter, name, remember(name))
    _patch(DataStreamWriter, "option", option)
    _patch(DataStreamWriter, "options", options)
    _patch(DataStreamWriter, "outputMode", output_mode)
    _patch(DataStreamWriter, "start", start)
    _patch(DataStreamWriter, "toTable", to_table)

    def no_write(name: str) -> Callable[..., Any]:
        def method(self: Any, *args: Any, **kwargs: Any) -> None:
            _sandbox().warn(f"a batch write (DataFrameWriter.{name}) was skipped: nothing is "
                            "written outside the sandbox")
        return method

    for name in ("save", "saveAsTable", "insertInto", "parquet", "json", "csv", "orc", "text",
                 "jdbc", "xml"):
        if hasattr(DataFrameWriter, name):
            _patch(DataFrameWriter, name, no_write(name))


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
        _ORIGINAL[(RuntimeConfig, "set")](self, key, value)

    _patch(RuntimeConfig, "set", conf_set)
    _patch(SparkSession.Builder, "getOrCreate", get_or_create)
    _patch(SparkSession, "stop", lambda self: None)
    _patch(SparkSession, "table", table)

    def await_termination(self: Any, timeout: Any = None) -> bool:
        with contextlib.suppress(Exception):
            _ORIGINAL[(StreamingQuery, "awaitTermination")](self, timeout)
        return True

    def await_any(self: Any, timeout: Any = None) -> bool:
        for run in _sandbox().queries.values():
            if run.handle is not None:
                await_termination(run.handle)
        return True

    _patch(StreamingQuery, "awaitTermination", await_termination)
    _patch(StreamingQueryManager, "awaitAnyTermination", await_any)


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
                for run in sandbox.queries.values():
                    if run.handle is not None:
                        with contextlib.suppress(Exception):
                            _ORIGINAL[(type(run.handle), "awaitTermination")](run.handle)
        finally:
            timer.cancel()
            timed_out = _fired(sandbox)
            _stop_all(sandbox, fired=False)
            _uninstall()
            _ACTIVE.pop()
    return JobRun(sandbox.queries, error, timed_out)


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


def _fired(sandbox: Sandbox) -> bool:
    return any(w.startswith("timed out") for w in sandbox.warnings)


def _stop_all(sandbox: Sandbox, fired: bool = True) -> None:
    if fired:
        sandbox.warn("timed out: the run was stopped")
    for run in sandbox.queries.values():
        if run.handle is not None:
            with contextlib.suppress(Exception):
                run.handle.stop()
