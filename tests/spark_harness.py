"""Run a case pair on real Spark: the old job, then the new job restarted from its checkpoint.

A case lives in `tests/spark_cases/<name>/` as `old.py`, `new.py` (ordinary PySpark job files
that take their paths from `STREAMLINT_*` environment variables) and `case.toml`: the expected
verdict, codes and Spark outcome, and the data sets to feed the jobs (`[inputs]`). Its format and
loader are tests/cases.py's (kind "spark"); `DATASETS` below are the data sets it may name.

The observation follows what an operator would see:

1. batch 1 lands in every input directory; the old job runs (`availableNow`) to the checkpoint;
2. batch 2 lands; the new job runs on the same checkpoint and output. If Spark refuses, the
   outcome is `restart-fails`;
3. otherwise the new job is also deployed from scratch the same way (batch 1, run, batch 2, run)
   with its own checkpoint and output, and the rows each new job wrote in its batch-2 run are
   compared: `same-results` if they are equal, `results-differ` if not (the restart silently
   changed what the job writes).

The jobs run in-process with `runpy.run_path`, so `SparkSession.builder.getOrCreate()` in a job
returns the caller's session: one JVM serves every case.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import re
import runpy
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cases import Case
    from pyspark.sql import SparkSession

# The Spark version the outcomes in case.toml (`spark = ...`) were observed on; the static diff is
# asked about the same version.
RECORDED_ON = "4.3"
# availableNow runs here take seconds; one still running after this is stuck (e.g. a
# processing-time timeout, which makes availableNow plan no-data batches forever).
RUN_TIMEOUT_SECONDS = 120.0

Row = dict[str, Any]
OutputRow = tuple[tuple[str, str], ...]  # (column, canonical value) pairs, sorted by column

# ---------------------------------------------------------------------------------------------
# Input data: small, deterministic batches. Event time advances 30 s per batch so that the
# watermarks (10 s delay in every case) move and close the windows and join ranges of batch 1.

_EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def _ts(seconds: int) -> str:
    return (_EPOCH + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def orders(batch: int) -> list[Row]:
    """Six orders for customers a/b/c in two countries, plus one exact re-delivery."""
    rows = [
        {"order_id": batch * 6 + j, "customer": "abc"[j % 3], "country": ("DE", "FR")[j % 2],
         "amount": batch * 10 + j, "ts": _ts(batch * 30 + j)}
        for j in range(6)
    ]
    return [*rows, dict(rows[0])]


def store_orders(batch: int) -> list[Row]:
    """Orders from a second channel: same schema, own ids, customers a and d."""
    return [
        {"order_id": 1000 + batch * 2 + j, "customer": "ad"[j], "country": "DE",
         "amount": 100 * batch + j, "ts": _ts(batch * 30 + j)}
        for j in range(2)
    ]


def payments(batch: int) -> list[Row]:
    """Payments 2 s after the orders of customer a; batch 2 also pays order 7 (customer b,
    batch 1) late but inside the join's time range. Customer c never pays."""
    rows = [
        {"payment_id": batch * 10 + j, "paid_order_id": batch * 6 + j,
         "paid": batch * 10 + j, "pts": _ts(batch * 30 + j + 2)}
        for j in (0, 3)
    ]
    if batch == 2:
        rows.append({"payment_id": 99, "paid_order_id": 7, "paid": 11, "pts": _ts(33)})
    return rows


DATASETS: dict[str, Callable[[int], list[Row]]] = {
    "orders": orders,
    "store_orders": store_orders,
    "payments": payments,
}

# ---------------------------------------------------------------------------------------------
# Spark


def start_session() -> SparkSession:
    """The one session every case runs in: local[2], 2 shuffle partitions, no UI, UTC."""
    from pyspark.sql import SparkSession

    from streamlint.spark.runtime import DRIVER_JAVA_OPTIONS, LOAD_TOLERANT_CONFS

    # pandas UDF workers (applyInPandasWithState) must run the interpreter that has pandas.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("streamlint-spark-confirm")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", DRIVER_JAVA_OPTIONS)
        .config("spark.sql.adaptive.enabled", "false")
        # The suite runs on a loaded machine: no socket accept or heartbeat may time out.
        .config(map=LOAD_TOLERANT_CONFS)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class JobTimeout(AssertionError):
    """A job was still running after RUN_TIMEOUT_SECONDS: no outcome, a broken case."""


@contextlib.contextmanager
def _environ(values: Mapping[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _stop_active(spark: SparkSession) -> None:
    for query in spark.streams.active:
        query.stop()


class _Watchdog:
    """Stops every active query of `spark` if the job still runs after `seconds`."""

    def __init__(self, spark: SparkSession, seconds: float) -> None:
        self.fired = False
        self._spark = spark
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        _stop_active(self._spark)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()


def _is_spark_error(err: BaseException) -> bool:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    return isinstance(err, (PySparkException, Py4JJavaError))


def run_job(spark: SparkSession, job: Path, env: Mapping[str, str]) -> str | None:
    """Run a job file to completion in `spark`: Spark's error message, or None on success.

    Errors that are not Spark's (a bug in the job file) propagate: they are no observation.
    """
    error: str | None = None
    with _Watchdog(spark, RUN_TIMEOUT_SECONDS) as watchdog:
        try:
            with _environ(env):
                runpy.run_path(str(job), run_name="__main__")
        except Exception as err:
            if not _is_spark_error(err):
                raise
            error = error_text(err)
        finally:
            _stop_active(spark)
    if watchdog.fired:
        raise JobTimeout(f"{job} still ran after {RUN_TIMEOUT_SECONDS:.0f} s")
    return error


def error_text(err: BaseException) -> str:
    """The message of a (Py4J-wrapped) Spark error, without the JVM stack trace."""
    text = str(err)
    for marker in ("\nJVM stacktrace:", "\n\tat "):
        text = text.split(marker, 1)[0]
    return text.strip()


_ERROR_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]")


def error_class(message: str) -> str | None:
    """The innermost error class on the first line: `[STREAM_FAILED] ... exception: [X] ...`
    gives X; a plain assertion wrapped in STREAM_FAILED gives STREAM_FAILED."""
    classes = _ERROR_CLASS.findall(message.split("\n", 1)[0])
    return classes[-1] if classes else None


def error_summary(message: str) -> str:
    """The first line of the message after the STREAM_FAILED wrapper's preamble."""
    first = message.split("\n", 1)[0]
    return first.split("terminated with exception: ", 1)[-1]


# ---------------------------------------------------------------------------------------------
# One deployment of a job: its input directories, checkpoint and output


@dataclass(frozen=True)
class Run:
    job: Path
    error: str | None
    rows: list[OutputRow]


class Deployment:
    """Input directories, a checkpoint and an output directory under `root`."""

    def __init__(self, root: Path, inputs: Mapping[str, str]) -> None:
        self.root = root
        self.inputs = dict(inputs)
        self.checkpoint = root / "checkpoint"
        self.output = root / "output"
        for var in self.inputs:
            self.input_dir(var).mkdir(parents=True, exist_ok=True)

    def input_dir(self, var: str) -> Path:
        return self.root / "input" / var.lower()

    @property
    def env(self) -> dict[str, str]:
        env = {var: str(self.input_dir(var)) for var in self.inputs}
        env["STREAMLINT_CHECKPOINT"] = str(self.checkpoint)
        env["STREAMLINT_OUTPUT"] = str(self.output)
        return env

    def land(self, batch: int) -> None:
        """Batch `batch` of every input arrives as one JSON-lines file per input directory."""
        for var, dataset in self.inputs.items():
            lines = "".join(json.dumps(row) + "\n" for row in DATASETS[dataset](batch))
            (self.input_dir(var) / f"batch-{batch}.json").write_text(lines)

    def output_files(self) -> set[Path]:
        """Data files of the output (parquet or JSON), not `_spark_metadata` or checksums."""
        if not self.output.exists():
            return set()
        return {
            path for path in self.output.rglob("*")
            if path.is_file() and path.suffix in (".parquet", ".json")
            and not any(part.startswith(("_", ".")) for part in path.relative_to(self.output).parts)
        }

    def run(self, spark: SparkSession, job: Path) -> Run:
        """Run `job`; the rows it wrote are those in output files that are new."""
        before = self.output_files()
        error = run_job(spark, job, self.env)
        return Run(job, error, read_rows(sorted(self.output_files() - before)))


def read_rows(files: list[Path]) -> list[OutputRow]:
    """Every row of `files`, canonical and sorted: equal lists are equal multisets of rows."""
    import pandas as pd

    rows: list[OutputRow] = []
    for path in files:
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_json(path, lines=True, dtype=False)
        for record in frame.to_dict("records"):
            rows.append(tuple(sorted((str(k), _canonical(v)) for k, v in record.items())))
    return sorted(rows)


def _canonical(value: Any) -> str:
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT or (
            isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_canonical(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (pd.Timestamp, dt.datetime)):
        stamp = pd.Timestamp(value)
        if stamp.tzinfo is not None:
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return stamp.isoformat()
    return str(value)


# ---------------------------------------------------------------------------------------------
# The observation


class SetupError(AssertionError):
    """A step that must work did not: the old job on its own, or the new one from scratch."""


@dataclass(frozen=True)
class Observation:
    outcome: str
    error: str | None = None
    restarted: Run | None = None
    fresh: Run | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"{self.outcome}: {error_summary(self.error)}"
        assert self.restarted is not None and self.fresh is not None
        return (f"{self.outcome}: restarted, the new job wrote {_show(self.restarted.rows)}; "
                f"from scratch it wrote {_show(self.fresh.rows)}")


def _show(rows: list[OutputRow]) -> str:
    return "[" + "; ".join(", ".join(f"{k}={v}" for k, v in row) for row in rows) + "]"


def observe(spark: SparkSession, case: Case, workdir: Path) -> Observation:
    restarted = Deployment(workdir / "restarted", case.inputs)
    restarted.land(1)
    _must_succeed(restarted.run(spark, case.old))
    restarted.land(2)
    after_restart = restarted.run(spark, case.new)
    if after_restart.error is not None:
        return Observation("restart-fails", error=after_restart.error)

    fresh = Deployment(workdir / "fresh", case.inputs)
    fresh.land(1)
    _must_succeed(fresh.run(spark, case.new))
    fresh.land(2)
    baseline = _must_succeed(fresh.run(spark, case.new))
    if not baseline.rows:
        raise SetupError(f"{case.name}: the new job wrote nothing for batch 2; comparing "
                         "outputs would prove nothing")
    outcome = "same-results" if after_restart.rows == baseline.rows else "results-differ"
    return Observation(outcome, restarted=after_restart, fresh=baseline)


def _must_succeed(run: Run) -> Run:
    if run.error is not None:
        raise SetupError(f"{run.job.parent.name}/{run.job.name} failed on a checkpoint of its "
                         f"own: {run.error}")
    return run
