"""Restart the new job on the old job's checkpoint in a small local run, per query.

The observation follows what an operator would see (as tests/spark_harness.py does for the
recorded cases, but for any job file, with the sources and sinks stood in by `sandbox`):

1. both files run once in plan mode (no query starts) to learn their sources, the schemas they
   parse Kafka values with, and their queries;
2. batch 1 lands in every stand-in source; the old job runs to its checkpoints;
3. batch 2 lands; the new job restarts on the same checkpoints: per query, Spark refuses
   (`restart-fails`, with its error class) or runs;
4. the new job is also deployed from scratch (batch 1, run, batch 2, run); per query the rows
   it wrote in its batch-2 run are compared with the restarted run's: `same-results` or
   `results-differ` (Spark accepted the checkpoint, but the results changed).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from streamlint.records import record, replace
from streamlint.spark.error_text import error_class, error_summary, error_text
from streamlint.spark.runner import JobRun, StartedJob, cancel_job, finish_job, run_job, start_job
from streamlint.spark.runtime import close_run_sessions, run_session
from streamlint.spark.sandbox import CannotConfirm, QueryRun, Sandbox, SourceSpec
from streamlint.spark.state_schema import StoreSchema, read_state_schemas

# Spark's answer, as a verdict: a refused restart or changed results are incompatible. A
# restart that wrote no rows in either run ("no-output") compared nothing: it is no answer,
# and the static verdict stays in charge.
OUTCOME_VERDICT = {
    "restart-fails": "incompatible",
    "results-differ": "incompatible",
    "same-results": "compatible",
    "added": "compatible",
}
RUN_TIMEOUT_SECONDS = 120.0


@record
class QueryConfirmation:
    """What Spark did with one query of the pair."""

    key: str  # how the query was recognised in both files: checkpoint, name or position
    label: str
    outcome: str  # restart-fails | results-differ | same-results | no-output | added |
    #               removed | timed-out | cannot-confirm | fails-from-scratch
    error_class: str | None = None
    message: str | None = None
    old_state: tuple[StoreSchema, ...] = ()
    new_state: tuple[StoreSchema, ...] = ()
    restarted_rows: int = 0
    fresh_rows: int = 0
    example_difference: str | None = None

    @property
    def verdict(self) -> str | None:
        return OUTCOME_VERDICT.get(self.outcome)


@record
class Confirmation:
    """Spark's outcome for a job pair: per query, plus what the sandbox had to stub."""

    spark_version: str
    queries: tuple[QueryConfirmation, ...]
    warnings: tuple[str, ...] = ()
    problem: str | None = None  # the pair could not be confirmed at all, and why
    java_version: str = ""


def confirm_files(old: Path, new: Path, session: Any, tables: Mapping[str, str] | None = None,
                  timeout: float = RUN_TIMEOUT_SECONDS, workdir: Path | None = None
                  ) -> Confirmation:
    """Confirm the pair in `session` (a local SparkSession, or a Spark Connect one; each job
    run gets its own newSession() so that settings a job makes do not leak into the next).

    `workdir` holds the stand-in input, checkpoints and outputs; with Spark Connect the server
    must see it at the same path (loopback, or a shared mount)."""
    from streamlint.spark.runtime import is_connect

    tables = dict(tables or {})
    guessed = inferred(old, new, tables)
    tables.update({g.name: g.ddl for g in guessed})
    version, java = _versions(session)
    try:
        if workdir is not None:
            result = _confirm(old, new, session, tables, timeout, workdir, version)
        else:
            # A query the timeout left running may still write there: cleanup must not fail.
            with tempfile.TemporaryDirectory(prefix="streamlint-confirm-",
                                             ignore_cleanup_errors=True) as tmp:
                result = _confirm(old, new, session, tables, timeout, Path(tmp), version)
    finally:
        close_run_sessions()
    if not is_connect(session):
        _unload_state_stores(session)
    return replace(result, java_version=java,
                   warnings=tuple(g.warning for g in guessed) + result.warnings)


def inferred(old: Path, new: Path, tables: Mapping[str, str]) -> list[Any]:
    """Schemas for the sources neither the job nor the configuration gives one, from the
    static reading of both versions (`inferred_schemas`)."""
    from streamlint.errors import InputError
    from streamlint.extract import extract_file
    from streamlint.spark.inferred_schemas import inferred_schemas

    queries = []
    for path in (old, new):
        try:
            queries += list(extract_file(str(path)).queries)
        except InputError:
            continue  # the run itself will say what is wrong with the file
    return inferred_schemas(queries, tables)


def _versions(session: Any) -> tuple[str, str]:
    """Spark's and Java's versions where the queries run (the server, for Spark Connect)."""
    from streamlint.spark.runtime import is_connect

    if is_connect(session):
        row = session.sql("SELECT version(), "
                          "reflect('java.lang.System', 'getProperty', 'java.version')").first()
        return str(row[0]).split(" ", 1)[0], str(row[1])
    import pyspark

    java = str(session.sparkContext._jvm.java.lang.System.getProperty("java.version"))
    return pyspark.__version__, java


def _unload_state_stores(session: Any) -> None:
    """Drop the state stores this pair loaded: a JVM that confirms many pairs (the corpus, a
    test run) would otherwise keep every one of them in memory."""
    with contextlib.suppress(Exception):
        jvm = session.sparkContext._jvm
        jvm.org.apache.spark.sql.execution.streaming.state.StateStore.stop()


def _confirm(old: Path, new: Path, session: Any, tables: dict[str, str], timeout: float,
             workdir: Path, version: str) -> Confirmation:
    from streamlint.spark.synthetic import literal_pool

    pool = literal_pool(old.read_text(encoding="utf-8", errors="replace"),
                        new.read_text(encoding="utf-8", errors="replace"))
    warnings: list[str] = []
    plans = _plans(old, new, session, tables, pool, timeout, workdir, version, warnings)
    if isinstance(plans, Confirmation):
        return plans
    sources = _merged_sources(plans.values())
    value_schemas = [s for plan in plans.values() for s in plan.json_schemas]

    restarted = _Deployment(workdir / "restarted", tables, pool, sources, value_schemas, session)
    fresh = _Deployment(workdir / "fresh", tables, pool, sources, value_schemas, session)
    restarted.land(1)
    fresh.land(1)
    # The old job's first run and the new job's fresh one need only batch 1: run them together.
    old_started = restarted.start(old, timeout)
    fresh_started = fresh.start(new, timeout)
    old_run = finish_job(old_started)
    baseline = first = finish_job(fresh_started)
    # Read now: the fresh run's batch 2 may be stopped half-way below.
    new_states = {key: fresh.state(key) for key in first.queries}
    if old_run.timed_out:  # every further run would time out too: say so now
        why = (str(old_run.error) if isinstance(old_run.error, TimeoutError) else
               f"the old job still ran after {timeout:.0f} s on a few rows (a processing-time "
               "timeout in applyInPandasWithState, for one, makes an availableNow run plan "
               "empty batches forever); --confirm-timeout sets the limit")
        return Confirmation(version, (), tuple(warnings + restarted.warnings),
                            f"{old}: cannot confirm: {why}")
    restarted.land(2)
    old_states = {key: restarted.state(key) for key in old_run.queries}
    fresh.land(2)
    restart_started = restarted.start(new, timeout)
    # Where a query restarts, its batch-2 rows are compared with a fresh run's: that run starts
    # meanwhile, and is stopped if Spark refused every restart.
    fresh_started = fresh.start(new, timeout)
    after = finish_job(restart_started)
    if any(_query_error(after, key) is None for key in after.queries):
        baseline = finish_job(fresh_started)
    else:
        cancel_job(fresh_started)
    for deployment in (restarted, fresh):
        warnings.extend(w for w in deployment.warnings if w not in warnings)

    results: list[QueryConfirmation] = []
    for key, planned in plans["old"].queries.items():
        if key not in plans["new"].queries:
            results.append(QueryConfirmation(key, planned.label, "removed",
                                             old_state=tuple(old_states.get(key, ()))))
    for key, planned in plans["new"].queries.items():
        results.append(_judge(key, planned.label, old_run, after, first, baseline,
                              tuple(old_states.get(key, ())), tuple(new_states.get(key, ()))))
    return Confirmation(version, tuple(results), tuple(warnings))


def _plans(old: Path, new: Path, session: Any, tables: dict[str, str], pool: Any,
           timeout: float, workdir: Path, version: str, warnings: list[str]
           ) -> dict[str, Sandbox] | Confirmation:
    """Each version run once without starting its queries: what they read and start, or
    why the pair cannot be confirmed."""
    plans: dict[str, Sandbox] = {}
    for side, job in (("old", old), ("new", new)):
        sandbox = Sandbox(workdir / "plan" / side, tables, pool, plan=True,
                          session=run_session(session))
        try:
            run = run_job(sandbox, job, timeout)
        except CannotConfirm as err:
            return Confirmation(version, (), (), f"{job}: cannot confirm: {err}")
        warnings.extend(w for w in sandbox.warnings if w not in warnings)
        if run.error is not None and not sandbox.queries:
            return Confirmation(version, (), tuple(warnings),
                                f"{job}: the job failed before its queries started: "
                                f"{error_summary(error_text(run.error))}")
        if run.error is not None:
            # Its queries started; what failed after them (a notebook cell reading the
            # sink's table, a batch report) is not what a restart is about.
            warning = (f"{job.name}: the job failed after starting its queries "
                       f"({error_summary(error_text(run.error))}); they are compared as started")
            if warning not in warnings:
                warnings.append(warning)
        plans[side] = sandbox
    if not any(plan.queries for plan in plans.values()):
        return Confirmation(version, (), tuple(warnings), f"{new}: cannot confirm: neither "
                            "version started a streaming query when run as a script (the "
                            "queries streamlint found are built in functions or methods "
                            "that nothing in the file calls)")
    return plans



def _judge(key: str, label: str, old_run: JobRun, after: JobRun, first: JobRun,
           baseline: JobRun,
           old_state: tuple[StoreSchema, ...], new_state: tuple[StoreSchema, ...]
           ) -> QueryConfirmation:
    def result(outcome: str, error: BaseException | None = None, **extra: Any
               ) -> QueryConfirmation:
        message = error_text(error) if error is not None else None
        return QueryConfirmation(key, label, outcome,
                                 error_class(message) if message else None,
                                 error_summary(message) if message else None,
                                 old_state, new_state, **extra)

    existed = key in old_run.queries
    if existed:
        old_error = _query_error(old_run, key)
        if old_error is not None:
            return result("cannot-confirm", old_error) if not old_run.timed_out else \
                result("timed-out")
    if after.timed_out or first.timed_out or baseline.timed_out:
        return result("timed-out")
    restart_error = _query_error(after, key)
    if restart_error is not None:
        if not existed:
            return result("fails-from-scratch", restart_error)
        fresh_error = _query_error(first, key)
        if fresh_error is not None:  # not the checkpoint's doing: the new job fails anyway
            return result("fails-from-scratch", fresh_error)
        said = error_summary(error_text(restart_error))
        if "/sources/" in said and "streamlint-confirm" in said:
            # A changed topic or path is another local directory; Spark's file source trips
            # on that where the real source would not.
            return result("cannot-confirm", RuntimeError(
                "the source changed (topic, path or table): the local stand-in cannot show "
                f"what the real source does on restart ({said})"))
        return result("restart-fails", restart_error)
    if not existed:
        return result("added")
    # The restart is compared with the fresh deployment: rows from a failed run of it (none,
    # or a batch too many) would make up a difference, or hide one.
    fresh_error = _query_error(first, key) or _query_error(baseline, key)
    if fresh_error is not None:
        return result("cannot-confirm", RuntimeError(
            "the fresh run to compare with failed: "
            f"{error_summary(error_text(fresh_error))}"))
    restarted_rows = after.queries[key].rows()
    fresh_rows = baseline.queries[key].rows() if key in baseline.queries else []
    counts = {"restarted_rows": len(restarted_rows), "fresh_rows": len(fresh_rows)}
    if restarted_rows == fresh_rows:
        return result("same-results" if fresh_rows else "no-output", **counts)
    return result("results-differ", example_difference=_difference(restarted_rows, fresh_rows),
                  **counts)


def _query_error(run: JobRun, key: str) -> BaseException | None:
    query: QueryRun | None = run.queries.get(key)
    if query is None:
        return run.error or RuntimeError("the query did not start")
    if query.start_error is not None:
        return query.start_error
    if query.handle is not None:
        try:
            return query.handle.exception()
        except Exception as err:  # the JVM side is gone: report what it said
            return err
    return None


def _difference(restarted: list[tuple], fresh: list[tuple]) -> str:
    only_restarted = [r for r in restarted if r not in fresh]
    only_fresh = [r for r in fresh if r not in restarted]

    def show(row: tuple) -> str:
        return "{" + ", ".join(f"{k}={v}" for k, v in row) + "}"

    parts = []
    if only_restarted:
        parts.append(f"restarted wrote {show(only_restarted[0])}")
    if only_fresh:
        parts.append(f"a fresh run wrote {show(only_fresh[0])}")
    return "; ".join(parts)


def _merged_sources(plans: Any) -> dict[str, SourceSpec]:
    """Each source once; a file read with more columns by one version gets them all."""
    from pyspark.sql.types import StructType

    merged: dict[str, SourceSpec] = {}
    for plan in plans:
        for identity, spec in plan.sources.items():
            if identity not in merged:
                merged[identity] = spec
                continue
            known = {f.name for f in merged[identity].schema.fields}
            extra = [f for f in spec.schema.fields if f.name not in known]
            if extra:
                fields = [*merged[identity].schema.fields, *extra]
                merged[identity] = SourceSpec(identity, spec.kind, StructType(fields),
                                              spec.topic)
    return merged


class _Deployment:
    """Stand-in source directories and checkpoints shared by the runs of one deployment."""

    def __init__(self, root: Path, tables: Mapping[str, str], pool: tuple[str, ...],
                 sources: Mapping[str, SourceSpec], value_schemas: list[Any],
                 session: Any) -> None:
        self.root, self.tables, self.pool = root, tables, pool
        self.sources, self.value_schemas, self.session = sources, value_schemas, session
        self._sandboxes: list[Sandbox] = []
        self._layout = Sandbox(root, tables, pool)

    def land(self, batch: int) -> None:
        from streamlint.spark.synthetic import kafka_rows, rows

        value_schema = Sandbox(self.root, self.tables, self.pool,
                               json_schemas=list(self.value_schemas)).value_schema()
        for identity, spec in self.sources.items():
            directory = self._layout.source_dir(identity)
            directory.mkdir(parents=True, exist_ok=True)
            data = (kafka_rows(spec.topic, value_schema, batch, self.pool)
                    if spec.kind == "kafka" else rows(spec.schema, batch, self.pool))
            (directory / f"batch-{batch}.json").write_text(
                "".join(json.dumps(row) + "\n" for row in data))

    def run(self, job: Path, timeout: float) -> JobRun:
        return finish_job(self.start(job, timeout))

    def start(self, job: Path, timeout: float) -> StartedJob:
        """Run `job` up to its queries' start; `finish_job` waits for them."""
        sandbox = Sandbox(self.root, self.tables, self.pool, session=run_session(self.session),
                          wait_in_job=False)
        self._sandboxes.append(sandbox)
        return start_job(sandbox, job, timeout)

    @property
    def warnings(self) -> list[str]:
        seen: list[str] = []
        for sandbox in self._sandboxes:
            seen.extend(w for w in sandbox.warnings if w not in seen)
        return seen

    def state(self, key: str) -> list[StoreSchema]:
        return read_state_schemas(self._layout.checkpoint(key))
