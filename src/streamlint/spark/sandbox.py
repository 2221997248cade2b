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

This module holds the sandbox itself (its stand-in sources and sinks); the patches that route
pyspark to it are in `patches`, the platform stubs in `stubs`, running a job file in `runner`,
row canonicalisation in `rows`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlint.extract.pyspark_api import FILE_FORMATS as _EXTRACTED_FILE_FORMATS
from streamlint.model.identity import QueryKey
from streamlint.spark.inferred_schemas import Guess
from streamlint.spark.patching import ORIGINAL, load_with, pyspark_method, state_of
from streamlint.spark.rows import canonical_row, slug, to_json
from streamlint.spark.runtime import is_connect
from streamlint.spark.stubs import StubQuery, stable_path
from streamlint.spark.synthetic import kafka_rows, rows

KAFKA_SCHEMA = ("key BINARY, value BINARY, topic STRING, partition INT, offset LONG, "
                "timestamp TIMESTAMP, timestampType INT")
FILE_FORMATS = set(_EXTRACTED_FILE_FORMATS)  # the formats the static extractor knows
TABLE_FORMATS = {"delta", "iceberg", "hudi", "table"}
# Spark Connect starts a query's foreachBatch function in a new Python worker on the server and
# gives it a fixed 10 s to connect back (PythonWorkerFactory.createSimpleWorker): on a busy
# machine its imports can take longer. The query has not started then: its start is retried,
# for as long as WORKER_RETRY_SECONDS allow (a count of attempts would depend on the load).
WRITTEN = ("the schema of what the job itself writes there (a batch write, skipped, or a "
           "streaming query's output)")
WORKER_DID_NOT_CONNECT = "Python worker failed to connect back"
WORKER_RETRY_SECONDS = 90.0


# Reader options that decide a file's schema (the rest, such as maxFilesPerTrigger, do not).
_READ_OPTIONS = {"header", "inferschema", "sep", "delimiter", "multiline", "samplingratio",
                 "encoding", "quote", "escape", "comment", "mergeschema", "recursivefilelookup",
                 "pathglobfilter"}


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

    key: QueryKey
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
    # What the job itself writes to a table or path: a skipped batch write's schema, or a
    # streaming query's output; a later read of it (a medallion's next layer) gets it.
    written: dict[str, Any] = field(default_factory=dict)
    queries: dict[QueryKey, QueryRun] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    session: Any = None
    # False: the job's own awaitTermination returns at once and `finish_job` waits instead, so
    # that another job can start meanwhile (the 2 cores are shared by two runs' tiny batches).
    wait_in_job: bool = True

    def source_dir(self, identity: str) -> Path:
        return self.workdir / "sources" / slug(identity)

    def checkpoint(self, key: QueryKey) -> Path:
        return self.workdir / "checkpoints" / slug(str(key))

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
        pyspark_method(reader, "schema")(reader, spec.schema)
        if name is not None:
            pyspark_method(reader, "name")(reader, name)
        return load_with(reader, "json", str(directory))

    def _static(self, spec: SourceSpec) -> Any:
        if spec.kind == "kafka":
            data = kafka_rows(spec.topic, self.value_schema(), 1, self.pool)
        else:
            data = rows(spec.schema, 1, self.pool)
        # Through JSON, as the streaming stand-ins are read: the same parsing of every type.
        if is_connect(self.session):  # no SparkContext: a file the server reads
            directory = self.workdir / "static" / slug(spec.identity) / uuid.uuid4().hex
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "rows.json").write_text("".join(to_json(r) + "\n" for r in data))
            reader = self.session.read
            pyspark_method(reader, "schema")(reader, spec.schema)
            return load_with(reader, "json", str(directory))
        texts = self.session.sparkContext.parallelize([to_json(r) for r in data], 1)
        from pyspark.sql.readwriter import DataFrameReader

        reader = DataFrameReader(self.session)
        ORIGINAL[(DataFrameReader, "schema")](reader, spec.schema)
        return ORIGINAL[(DataFrameReader, "json")](reader, texts)

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
            # Spark's TextSocketSourceProvider: a `timestamp` column with includeTimestamp.
            stamped = str(options.get("includetimestamp", "")).lower() == "true"
            return SourceSpec("socket", "socket", self.struct(
                "value STRING, timestamp TIMESTAMP" if stamped else "value STRING"))
        if fmt in TABLE_FORMATS or fmt not in FILE_FORMATS | {"cloudfiles"}:
            name = (path or options.get("path") or options.get("tablename")
                    or options.get("dbtable") or options.get("table") or fmt)
            configured = self.tables.get(name)
            if isinstance(configured, Guess) and (schema is not None or name in self.written):
                configured = None  # what the job itself says beats a guess from its columns
            if configured is None and schema is None and name in self.written:
                schema = self.written[name]
                self.warn(f"no schema for table {name}: {WRITTEN}")
            if configured is None and schema is None:
                raise CannotConfirm(
                    f"no schema for table {name}: add `\"{name}\" = \"col TYPE, ...\"` to "
                    "[tool.streamlint.tables] in pyproject.toml")
            return SourceSpec(f"table:{name}", "table", self.struct(configured or schema))
        where = path or options.get("path") or ""
        if schema is None:
            if fmt == "text":
                schema = "value STRING"
            elif where in self.tables and not isinstance(self.tables[where], Guess):
                schema = self.tables[where]
            elif stable_path(where) in self.written:
                schema = self.written[stable_path(where)]
                self.warn(f"no schema for the {fmt} source {where}: {WRITTEN}")
            elif (local := self._local_schema(fmt, where, options)) is not None:
                schema = local
            elif where in self.tables:
                schema = self.tables[where]
            else:
                raise CannotConfirm(f"no schema for the {fmt} source {where}: declare it with "
                                    ".schema(...) (streaming file sources need one) or in "
                                    "[tool.streamlint.tables]")
        return SourceSpec(f"path:{stable_path(where)}", "file", self.struct(schema))

    def _local_schema(self, fmt: str, where: str, options: Mapping[str, str]) -> Any:
        """The schema of a file source whose data is on this machine (a sample folder in the
        repository): read, as the job's own options read it, never written. None otherwise."""
        if fmt not in FILE_FORMATS or not where or "://" in where or self.session is None \
                or is_connect(self.session):
            return None
        location = Path(where)
        if not location.exists():
            return None
        from pyspark.sql.readwriter import DataFrameReader

        reader = DataFrameReader(self.session)
        wanted = {k: v for k, v in options.items() if k.lower() in _READ_OPTIONS}
        try:
            pyspark_method(reader, "options")(reader, **wanted)
            schema = load_with(reader, fmt, str(location.resolve())).schema
        except Exception:  # noqa: BLE001 - unreadable: the job's own schema is still asked for
            return None
        if not schema.fields:
            return None
        self.warn(f"no schema for the {fmt} source {where}: read from the files there")
        return schema

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

    def start(self, writer: Any, key: QueryKey, label: str) -> Any:
        run = QueryRun(key, label)
        for method in ("foreachBatch", "foreach"):
            function = (state_of(writer).get(method) or (None,))[0]
            if function is not None:
                name = getattr(function, "__name__", type(function).__name__)
                self.warn(f"the {method} function {name} was not run: the rows it would "
                          "receive are compared instead")
        if key in self.queries:
            raise CannotConfirm(f"two queries share the checkpoint {key}")
        self.queries[key] = run
        if self.plan:
            return StubQuery(label)

        def collect(batch: Any, batch_id: int) -> None:
            run.batches.append((batch_id, [canonical_row(r) for r in batch.collect()]))

        sink: Callable[[Any, int], None] = collect
        if is_connect(self.session):
            run.output = self.workdir / "output" / slug(str(key)) / uuid.uuid4().hex
            sink = _parquet_sink(str(run.output))
        pyspark_method(writer, "foreachBatch")(writer, sink)
        pyspark_method(writer, "trigger")(writer, availableNow=True)
        pyspark_method(writer, "option")(writer, "checkpointLocation", str(self.checkpoint(key)))
        retry_until = time.monotonic() + WORKER_RETRY_SECONDS
        while True:
            try:
                run.handle = pyspark_method(writer, "start")(writer)
                return run.handle
            except Exception as err:  # Spark refused to start it: that is the observation
                if WORKER_DID_NOT_CONNECT in str(err) and time.monotonic() < retry_until:
                    self.warn(f"the server's foreachBatch Python worker did not connect back "
                              f"within Spark's 10 s: the start of {label} was retried")
                    continue
                run.start_error = err
                return StubQuery(label)

    def read_outputs(self) -> None:
        """Spark Connect: the batches the server wrote, read back through the session."""
        for run in self.queries.values():
            if run.output is None or not run.output.is_dir():
                continue
            for batch in sorted((d for d in run.output.iterdir() if d.name.isdigit()),
                                key=lambda d: int(d.name)):
                frame = load_with(self.session.read, "parquet", str(batch))
                run.batches.append((int(batch.name),
                                    [canonical_row(r) for r in frame.collect()]))


def _parquet_sink(target: str) -> Callable[[Any, int], None]:
    """A foreachBatch function for the Connect server's Python worker: it references nothing
    of streamlint (the server need not have it installed), only the target directory."""

    def write_batch(batch: Any, batch_id: int) -> None:
        batch.write.mode("overwrite").parquet(f"{target}/{batch_id}")

    return write_batch
