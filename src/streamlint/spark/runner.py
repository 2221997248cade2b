"""Running one job file in a sandbox: as `__main__`, with the platform stubbed and pyspark
patched, each query stopped at the timeout."""

from __future__ import annotations

import _thread
import contextlib
import re
import runpy
import threading
from dataclasses import dataclass
from pathlib import Path

from streamlint.model.identity import QueryKey
from streamlint.spark.job_modules import own_modules
from streamlint.spark.notebooks import hooks, runnable
from streamlint.spark.patches import active
from streamlint.spark.patching import pyspark_method
from streamlint.spark.pipelines import pipeline_module
from streamlint.spark.sandbox import CannotConfirm, QueryRun, Sandbox
from streamlint.spark.stubs import NotebookExit, notebook_globals, platform_stubs


@dataclass
class JobRun:
    """What happened when a job file ran: its queries, or the error that stopped the file."""

    queries: dict[QueryKey, QueryRun]
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
    job = job.resolve()  # the run works in a shadow of the job's folder: a relative path breaks
    with active(sandbox):
        error: BaseException | None = None
        in_job = _InJob()
        timer = threading.Timer(timeout, _on_timeout, args=(sandbox, in_job))
        timer.daemon = True
        timer.start()
        try:
            with own_modules(job), platform_stubs(job) as stubs, pipeline_module() as pipeline:
                source = job.read_text(encoding="utf-8", errors="replace")
                stubs.update(notebook_globals(sandbox, source))
                _state_store_for(sandbox, source)
                _lenient_parsing_for(sandbox, source)
                _timeouts_for(sandbox, source)
                try:
                    with in_job:
                        _execute(sandbox, job, source, stubs)
                        pipeline.start_flows()  # a pipeline file's tables, as its update would
                except KeyboardInterrupt:
                    if not in_job.interrupted:
                        raise
                    error = TimeoutError(
                        f"the job's own code still ran after {timeout:.0f} s (a loop waiting "
                        "for its queries' progress, a sleep?); --confirm-timeout sets the limit")
                except SystemExit as err:
                    if err.code not in (None, 0):
                        error = err
                except NotebookExit:
                    pass  # dbutils.notebook.exit(): the notebook's normal end
                except CannotConfirm:
                    raise
                except Exception as err:
                    error = err
        except BaseException:  # CannotConfirm, an interrupt: nothing is left running
            timer.cancel()
            _stop_all(sandbox, fired=False)
            raise
    return StartedJob(sandbox, error, timer)


def _execute(sandbox: Sandbox, job: Path, source: str, stubs: dict) -> None:
    """Run the job as `__main__`; a notebook as the Python its cells make (`notebooks`)."""
    code = runnable(job, source)
    if code is None:
        runpy.run_path(str(job), init_globals=stubs, run_name="__main__")
        return
    namespace = {"__name__": "__main__", "__file__": str(job), **stubs}
    namespace.update(hooks(job, namespace, sandbox.warn))
    exec(compile(code, str(job), "exec"), namespace)  # noqa: S102 - the user's notebook


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


NO_DATA_BATCHES = "spark.sql.streaming.noDataMicroBatches.enabled"


def _timeouts_for(sandbox: Sandbox, source: str) -> None:
    """A processing-time timeout in applyInPandasWithState (mapGroupsWithState) keeps state
    waiting for the clock: Spark plans a batch without data for it again and again, and an
    availableNow run never ends. The runs of such a job plan no empty batches (the setting is
    not one a checkpoint pins, and both versions run alike); the report says so."""
    if sandbox.session is None or "ProcessingTimeTimeout" not in source:
        return
    sandbox.session.conf.set(NO_DATA_BATCHES, "false")
    sandbox.warn("the job sets a processing-time timeout: its runs had "
                 f"{NO_DATA_BATCHES}=false, so no batch runs without new rows (timeouts "
                 "fire only with data), else an availableNow run waits for the clock forever")


# String parsing that fails a whole batch under ANSI mode (Spark 4's default) when the input
# is not in the expected format: the stand-in's synthetic strings rarely are.
_PARSES_STRINGS = re.compile(
    r"\b(?:to_timestamp|to_date|unix_timestamp|to_unix_timestamp|try_to_timestamp)\s*\(|"
    r"\.cast\(\s*[\"'](?:int|integer|bigint|long|short|smallint|tinyint|double|float|"
    r"decimal[^\"']*|timestamp|date|boolean)[\"']|"
    r"\.cast\(\s*(?:\w+\.)?(?:Integer|Long|Short|Byte|Double|Float|Decimal|Timestamp|Date|"
    r"Boolean)Type\(|"
    r"\bCAST\s*\(.+?\s+AS\s+(?:INT|INTEGER|BIGINT|LONG|DOUBLE|FLOAT|DECIMAL|TIMESTAMP|DATE)\b",
    re.IGNORECASE)
ANSI = "spark.sql.ansi.enabled"


def _lenient_parsing_for(sandbox: Sandbox, source: str) -> None:
    """A job that parses strings (to_timestamp with a format, a cast to a number or a date)
    would fail its first batch on synthetic strings under ANSI mode: the runs of such a job
    have ANSI mode off, so an unparseable value becomes null, as on Spark 3.5 or a cluster
    with ANSI off, and the report says so. Both versions run alike, so the restart's outcome
    is still compared like for like (the job's own setting wins)."""
    if sandbox.session is None or not _PARSES_STRINGS.search(source):
        return
    sandbox.session.conf.set(ANSI, "false")
    sandbox.warn("the job parses strings (to_timestamp, to_date or casts): its runs had "
                 f"{ANSI}=false, so a synthetic value that does not parse becomes null "
                 "instead of failing the batch")


def cancel_job(started: StartedJob) -> None:
    """Stop the queries of a job whose outcome is no longer needed."""
    started.timer.cancel()
    _stop_all(started.sandbox, fired=False)


def _fired(sandbox: Sandbox) -> bool:
    return any(w.startswith("timed out") for w in sandbox.warnings)


class _InJob:
    """Whether the job's own Python is running, so that the timeout can interrupt it (a
    notebook that polls `query.recentProgress` in a loop would never end): only in the main
    thread, where KeyboardInterrupt lands."""

    def __init__(self) -> None:
        self.running = False
        self.interrupted = False
        self.lock = threading.Lock()

    def __enter__(self) -> None:
        with self.lock:
            self.running = threading.current_thread() is threading.main_thread()

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.running = False

    def interrupt(self) -> None:
        with self.lock:
            if self.running:
                self.interrupted = True
                _thread.interrupt_main()


def _on_timeout(sandbox: Sandbox, in_job: _InJob) -> None:
    _stop_all(sandbox)
    in_job.interrupt()


def _stop_all(sandbox: Sandbox, fired: bool = True) -> None:
    if fired:
        sandbox.warn("timed out: the run was stopped")
    for run in sandbox.queries.values():
        if run.handle is not None:
            with contextlib.suppress(Exception):
                pyspark_method(run.handle, "stop")(run.handle)  # not the job's patched one
