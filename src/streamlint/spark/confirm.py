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
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamlint.extract import extract_file
from streamlint.extract.project import on_disk, project_root
from streamlint.model import JobFile
from streamlint.model.errors import InputError
from streamlint.model.identity import QueryKey
from streamlint.model.records import record, replace
from streamlint.spark.deployment import Deployment, merged_sources
from streamlint.spark.error_text import error_class, error_summary, error_text
from streamlint.spark.inferred_schemas import Guess, inferred_schemas
from streamlint.spark.runner import JobRun, cancel_job, finish_job, run_job
from streamlint.spark.runtime import close_run_sessions, is_connect, run_session
from streamlint.spark.sandbox import CannotConfirm, QueryRun, Sandbox
from streamlint.spark.state_schema import StoreSchema
from streamlint.spark.synthetic import literal_pool
from streamlint.workflow.modules import source_roots

# Spark's answer, as a verdict: a refused restart or changed results are incompatible. A
# restart that wrote no rows in either run ("no-output") compared nothing: it is no answer,
# and the static verdict stays in charge.
OUTCOME_VERDICT = {
    "restart-fails": "incompatible",
    "results-differ": "incompatible",
    # Rows differ, as a change the static diff found intends (streamlint.spark.intent).
    "differs-as-intended": "compatible",
    "same-results": "compatible",
    "added": "compatible",
    "starts-over": "incompatible",
}
RUN_TIMEOUT_SECONDS = 120.0
# Spark runs a Declarative Pipelines file only inside its pipeline graph (`spark-pipelines
# run`, on a Spark Connect server), never as a script: its decorators raise
# GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE there.
SDP_REFUSAL = ("a Spark Declarative Pipelines file runs only inside `spark-pipelines run`, "
               "which --confirm does not drive; the static verdict stands")


@record
class QueryConfirmation:
    """What Spark did with one query of the pair."""

    key: QueryKey  # how the query was recognised in both files: checkpoint, name or position
    label: str
    outcome: str  # restart-fails | results-differ | differs-as-intended | same-results |
    #               no-output | added |
    #               removed | starts-over | timed-out | cannot-confirm | fails-from-scratch
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
    # Both versions ran to their end on Spark and started no streaming query, as the static
    # reading found none: nothing restarts, and that is Spark's answer.
    no_query: bool = False


def confirm_files(old: Path, new: Path, session: Any, tables: Mapping[str, str] | None = None,
                  timeout: float = RUN_TIMEOUT_SECONDS, workdir: Path | None = None,
                  static: tuple[JobFile, JobFile] | None = None) -> Confirmation:
    """Confirm the pair in `session` (a local SparkSession, or a Spark Connect one; each job
    run gets its own newSession() so that settings a job makes do not leak into the next).

    `workdir` holds the stand-in input, checkpoints and outputs; with Spark Connect the server
    must see it at the same path (loopback, or a shared mount). `static` is the static
    reading of both versions the report shows (read here as `diff` reads them otherwise)."""
    tables = dict(tables or {})
    files = static if static is not None else static_files(old, new)
    version, java = _versions(session)
    if any(job.pipeline_api == "sdp" for job in files):
        return Confirmation(version, (), (), f"{new}: cannot confirm: {SDP_REFUSAL}",
                            java_version=java)
    queries = [q for job in files for q in job.queries]
    guessed = inferred_schemas(queries, tables)
    tables.update({g.name: Guess(g.ddl) for g in guessed})
    # Streaming code the static reading did not understand may hold a query: not "none".
    static_reading = ("queries" if queries else
                      "unseen" if any(job.unseen for job in files) else "none")
    run = _Run(session, tables, timeout, version, static_reading)
    try:
        if workdir is not None:
            result = _confirm(old, new, run, workdir)
        else:
            # A query the timeout left running may still write there: cleanup must not fail.
            with tempfile.TemporaryDirectory(prefix="streamlint-confirm-",
                                             ignore_cleanup_errors=True) as tmp:
                result = _confirm(old, new, run, Path(tmp))
    except Exception as err:  # noqa: BLE001 - a fault of streamlint's own: no answer, said so
        result = Confirmation(version, (), (), f"{new}: cannot confirm: the Spark run itself "
                              f"failed ({type(err).__name__}: {str(err)[:300]}); this is a "
                              "fault in streamlint, please report it: the static verdict "
                              "stands")
    finally:
        close_run_sessions()
    if not is_connect(session):
        _unload_state_stores(session)
    return replace(result, java_version=java,
                   warnings=tuple(g.warning for g in guessed) + result.warnings)


def static_files(old: Path, new: Path) -> list[JobFile]:
    """Both versions as the static reading sees them: what their sources' inferred schemas
    come from, and whether a run that starts no query is what the code says."""
    files: list[JobFile] = []
    for path in (old, new):
        # Read as `diff` reads it (diff_files): with its repository's modules, whose helpers
        # may start the queries.
        roots = source_roots(project_root(str(path)), None, None)
        try:
            files.append(extract_file(str(path), on_disk(str(path), roots)))
        except InputError:
            continue  # the run itself will say what is wrong with the file
    return files


@dataclass(frozen=True)
class _Run:
    """What every run of a pair shares: the session, the tables' schemas, the timeout."""

    session: Any
    tables: dict[str, str]
    timeout: float
    version: str
    static_reading: str  # in either version: "queries" found, streaming code "unseen", "none"


def _versions(session: Any) -> tuple[str, str]:
    """Spark's and Java's versions where the queries run (the server, for Spark Connect)."""
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


def _confirm(old: Path, new: Path, run: _Run, workdir: Path) -> Confirmation:
    pool = literal_pool(old.read_text(encoding="utf-8", errors="replace"),
                        new.read_text(encoding="utf-8", errors="replace"))
    warnings: list[str] = []
    plans = _plans(old, new, run, pool, workdir, warnings)
    if isinstance(plans, Confirmation):
        return plans
    sources = merged_sources(plans.values())
    value_schemas = [s for plan in plans.values() for s in plan.json_schemas]

    restarted, fresh = (Deployment(workdir / name, run.tables, pool, sources, value_schemas,
                                    run.session) for name in ("restarted", "fresh"))
    try:
        return _deploy(old, new, plans, restarted, fresh, run, warnings)
    except CannotConfirm as err:
        # A stand-in the plan runs did not need (a version reading another local folder):
        # the runs already started were stopped by the deployments.
        for deployment in (restarted, fresh):
            deployment.cancel()
        return Confirmation(run.version, (), tuple(warnings), f"{new}: cannot confirm: {err}")


def _deploy(old: Path, new: Path, plans: dict[str, Sandbox], restarted: Deployment,
            fresh: Deployment, run: _Run, warnings: list[str]) -> Confirmation:
    """Both deployments run: the old job then the new on the same checkpoints, and the new
    job from scratch; per query, Spark's outcome."""
    timeout, version = run.timeout, run.version
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
    gone = [key for key in plans["old"].queries if key not in plans["new"].queries]
    new_keys = [key for key in plans["new"].queries if key not in plans["old"].queries]
    # One query gone and one new: the query moved (its checkpoint, its name). Spark runs it
    # from scratch on the old deployment, and its rows are compared with a continuing run's.
    moved = len(gone) == 1 and len(new_keys) == 1
    if not moved:
        results += [QueryConfirmation(key, plans["old"].queries[key].label, "removed",
                                      old_state=tuple(old_states.get(key, ()))) for key in gone]
    for key, planned in plans["new"].queries.items():
        results.append(_judge(key, planned.label, old_run, after, first, baseline,
                              tuple(old_states.get(gone[0] if moved else key, ())),
                              tuple(new_states.get(key, ())),
                              moved_from=gone[0] if moved and key in new_keys else None))
    return Confirmation(version, tuple(results), tuple(warnings))


def _plans(old: Path, new: Path, run: _Run, pool: Any, workdir: Path, warnings: list[str]
           ) -> dict[str, Sandbox] | Confirmation:
    """Each version run once without starting its queries: what they read and start, or
    why the pair cannot be confirmed."""
    plans: dict[str, Sandbox] = {}
    for side, job in (("old", old), ("new", new)):
        sandbox = Sandbox(workdir / "plan" / side, run.tables, pool, plan=True,
                          session=run_session(run.session))
        try:
            ran = run_job(sandbox, job, run.timeout)
        except CannotConfirm as err:
            return Confirmation(run.version, (), (), f"{job}: cannot confirm: {err}")
        warnings.extend(w for w in sandbox.warnings if w not in warnings)
        if ran.error is not None and not sandbox.queries:
            return Confirmation(run.version, (), tuple(warnings),
                                f"{job}: the job failed before its queries started: "
                                f"{error_summary(error_text(ran.error))}")
        if ran.error is not None:
            # Its queries started; what failed after them (a notebook cell reading the
            # sink's table, a batch report) is not what a restart is about.
            warning = (f"{job.name}: the job failed after starting its queries "
                       f"({error_summary(error_text(ran.error))}); they are compared as started")
            if warning not in warnings:
                warnings.append(warning)
        plans[side] = sandbox
    if not any(plan.queries for plan in plans.values()):
        if run.static_reading == "none":
            # Spark agrees with the static reading: there is no checkpoint to restart from.
            return Confirmation(run.version, (), tuple(warnings), no_query=True)
        why = ("the queries streamlint found are built in functions or methods that nothing "
               "in the file calls" if run.static_reading == "queries" else
               "streamlint could not see where the job's streaming code goes: its findings "
               "name the lines")
        return Confirmation(run.version, (), tuple(warnings), f"{new}: cannot confirm: neither "
                            f"version started a streaming query when run as a script ({why}): "
                            "confirm the job that starts them instead, `streamlint diff "
                            "OLD_JOB NEW_JOB --confirm` with each version's modules beside "
                            "its job")
    return plans


def _judge(key: QueryKey, label: str, old_run: JobRun, after: JobRun, first: JobRun,
           baseline: JobRun,
           old_state: tuple[StoreSchema, ...], new_state: tuple[StoreSchema, ...],
           moved_from: QueryKey | None = None) -> QueryConfirmation:
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
    if not existed and moved_from is None:
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
    if moved_from is not None:
        return replace(result("starts-over", **counts),
                       message=f"the old code's query was {moved_from}",
                       example_difference=_difference(restarted_rows, fresh_rows))
    return result("results-differ", example_difference=_difference(restarted_rows, fresh_rows),
                  **counts)


def _query_error(run: JobRun, key: QueryKey) -> BaseException | None:
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
