"""`streamlint diff --confirm` on real Spark, for realistic job files (Kafka, Delta, JDBC,
foreachBatch, dbutils, several queries per file) that know nothing of streamlint.

Each pair in `tests/confirm_jobs/<name>/` has `case.toml`: what Spark does on restart
(`spark`: restart-fails | results-differ | same-results), for restart-fails a substring of
Spark's error (`error`), and `why` (the Spark guide's rule or the measured case behind it); the
format is tests/cases.py's, kind "confirm". The expected outcomes come from Spark's guide and
from tests/spark_cases (measured with the harness), never from streamlint's output. All pairs
run in the one session of conftest.py.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cases import ROOTS, load_cases

from streamlint.cli import main
from streamlint.model.identity import QueryKey
from streamlint.spark.confirm import Confirmation, confirm_files
from streamlint.spark.report import disagreements, final_verdict
from streamlint.workflow.files import diff_files

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JOBS = ROOTS["confirm"]
CASES = {case.name: case for case in load_cases(JOBS, "confirm")}
TABLES = {
    "customers": "customer_id STRING, segment STRING",
    "finance.refunds": "refund_id STRING, order_id STRING, amount DOUBLE, refunded_at TIMESTAMP",
}


def _confirm(spark: SparkSession, name: str, tables: dict[str, str] | None = None
             ) -> Confirmation:
    return confirm_files(JOBS / name / "old.py", JOBS / name / "new.py", spark, tables or TABLES)


def test_cases_cover_every_stateful_family() -> None:
    families = {case.family for case in CASES.values()}
    assert {"aggregation", "windowed aggregation", "dedup", "dropDuplicatesWithinWatermark",
            "stream-stream join", "applyInPandasWithState", "transformWithStateInPandas",
            "source count", "compatible refactor", "aggregation in SQL"} <= families


@pytest.mark.spark
@pytest.mark.parametrize("name", [n for n, case in CASES.items() if case.queries == 1])
def test_spark_outcome(spark: SparkSession, name: str) -> None:
    case = CASES[name]
    confirmation = _confirm(spark, name)
    assert confirmation.problem is None, confirmation.problem
    assert len(confirmation.queries) == 1
    (query,) = confirmation.queries
    assert query.outcome == case.outcome, query
    if case.error is not None:
        assert case.error in (query.message or ""), query.message
    for stubbed in case.warnings:  # what the sandbox had to provide
        assert stubbed in "\n".join(confirmation.warnings), confirmation.warnings
    # The schemas Spark wrote say the same as its error: a key schema error means the key
    # schemas differ, a value schema error the value schemas.
    assert query.old_state and query.new_state, "every case has a stateful operator"
    old = {(s.operator, s.store): s for s in query.old_state}
    new = {(s.operator, s.store): s for s in query.new_state}
    key_changed = any(old[k].key != new[k].key for k in old.keys() & new.keys())
    value_changed = any(old[k].value != new[k].value for k in old.keys() & new.keys())
    assert key_changed == ("KEY_SCHEMA" in (case.error or ""))
    if "VALUE_SCHEMA" in (case.error or ""):
        assert value_changed
    if case.outcome == "same-results":
        assert query.restarted_rows > 0, "rows must reach the sink, or the comparison is empty"


@pytest.fixture
def no_outside_connections() -> Iterator[list[Any]]:
    """Every connect() the Python side makes to a non-loopback address during the test."""
    seen: list[Any] = []
    active = [True]

    def hook(event: str, args: tuple) -> None:
        if active[0] and event == "socket.connect":
            address = args[1]
            host = address[0] if isinstance(address, tuple) else str(address)
            if not (isinstance(address, str) or host in ("localhost", "::1")
                    or host.startswith("127.")):
                seen.append(address)

    sys.addaudithook(hook)  # hooks cannot be removed: `active` switches it off
    try:
        yield seen
    finally:
        active[0] = False


@pytest.mark.spark
def test_platform_job_runs_without_contacting_anything(
        spark: SparkSession, no_outside_connections: list[Any]) -> None:
    """Unreachable brokers and databases, dbutils secrets and fs, a missing environment
    variable, required command-line arguments, a JDBC dimension table and a Delta table
    source: both queries still confirm, with a warning for each stub."""
    socket.getaddrinfo  # noqa: B018 - the audit hook sees connects, not lookups
    confirmation = _confirm(spark, "platform_stubs")
    assert confirmation.problem is None, confirmation.problem
    outcomes = {q.label: q.outcome for q in confirmation.queries}
    assert outcomes == {"dbfs:/checkpoints/segment_revenue": "same-results",
                        "dbfs:/checkpoints/refunds_bronze": "same-results"}
    warnings = "\n".join(confirmation.warnings)
    for stubbed in ("dbutils.secrets.get", "dbutils.fs.rm", "CUSTOMERS_JDBC_URL",
                    "command-line argument env", "write_segments was not run"):
        assert stubbed in warnings
    assert no_outside_connections == []


@pytest.mark.spark
def test_table_without_schema_cannot_be_confirmed(spark: SparkSession) -> None:
    confirmation = _confirm(spark, "platform_stubs", tables={"finance.refunds": "id STRING"})
    assert confirmation.queries == ()
    assert confirmation.problem is not None
    assert "no schema for table customers" in confirmation.problem
    assert "[tool.streamlint.tables]" in confirmation.problem


@pytest.mark.spark
def test_spark_sees_what_static_analysis_cannot(
        spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    """A grouping key added in SQL the job reads from a file it finds at run time: static says
    review at most (it cannot know which file), Spark refuses the restart; the report names the
    disagreement and exits with the stricter verdict."""
    case = JOBS / "sql_file_found_at_run_time_grouping_key_added"
    static = diff_files(str(case / "old.py"), str(case / "new.py"), "4.3")
    assert static.verdict != "incompatible"

    code = main(["diff", str(case / "old.py"), str(case / "new.py"), "--confirm",
                 "--format", "json", "--spark-version", "4.3"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["static_verdict"] == static.verdict
    assert data["verdict"] == "incompatible"
    (query,) = data["queries"]
    assert query["confirmation"]["outcome"] == "restart-fails"
    assert query["confirmation"]["error_class"] == "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE"
    assert query["confirmation"]["static_verdict"] == static.verdict
    assert "Spark is stricter" in data["spark"]["disagreements"][0]
    assert data["spark"]["reproduce"][:2] == ["streamlint", "diff"]


def test_disagreement_rules_without_spark() -> None:
    """The report's arithmetic, on records: stricter verdict wins, both directions named."""
    from streamlint.spark.confirm import QueryConfirmation

    case = JOBS / "refactor_helper_extracted"
    static = diff_files(str(case / "old.py"), str(case / "new.py"), "4.3")
    assert static.verdict == "compatible"
    corrupt = Confirmation("4.3.0", (QueryConfirmation(
        QueryKey("checkpoint", "s3://ads/_chk/campaign_spend"), "q", "results-differ"),))
    assert final_verdict(static, corrupt) == "incompatible"
    assert "Spark is stricter" in disagreements(static, corrupt)[0]
    fine = Confirmation("4.3.0", (QueryConfirmation(
        QueryKey("checkpoint", "s3://ads/_chk/campaign_spend"), "q", "same-results"),))
    assert final_verdict(static, fine) == "compatible"
    assert disagreements(static, fine) == []


def test_a_local_run_is_not_the_databricks_runtime_judged_for() -> None:
    """A static verdict for a Databricks runtime is confirmed on Apache Spark: the report says
    so even where the Spark versions match (CF08-CF10 are the runtime's own behaviour)."""
    from streamlint.spark.report import render_text

    case = JOBS / "agg_first_to_last"
    static = diff_files(str(case / "old.py"), str(case / "new.py"), "4.0", databricks="17.3")
    text = render_text(static, Confirmation("4.0.1", ()), "", ["streamlint"])
    assert ("note: the static verdict is for Databricks Runtime 17.3 (Spark 4.0); this run is "
            "Apache Spark 4.0.1") in text, text
    plain = diff_files(str(case / "old.py"), str(case / "new.py"), "4.0")
    assert "note:" not in render_text(plain, Confirmation("4.0.1", ()), "", ["streamlint"])


def test_no_rows_and_no_run_are_no_answer() -> None:
    """A restart after which neither run wrote rows compared nothing, and a query neither run
    started was not observed: neither is Spark saying "compatible". The static verdict stands,
    and the report says why Spark has no answer, in text and JSON."""
    from streamlint.report.json import report_data
    from streamlint.spark.confirm import QueryConfirmation
    from streamlint.spark.report import as_result, render_text

    case = JOBS / "agg_first_to_last"
    static = diff_files(str(case / "old.py"), str(case / "new.py"), "4.3")
    assert static.verdict == "incompatible"
    key = QueryKey("checkpoint", "s3://fraud-lake/_checkpoints/card_velocity")
    empty = Confirmation("4.3.0", (QueryConfirmation(key, "q", "no-output"),))
    assert empty.queries[0].verdict is None
    assert final_verdict(static, empty) == "incompatible"
    text = render_text(static, empty, "", ["streamlint"])
    assert "nothing could be compared" in text and "Spark: no outcome" in text
    unmatched = Confirmation("4.3.0", (QueryConfirmation(QueryKey("checkpoint", "/elsewhere"), "q",
                                                         "same-results"),))
    text = render_text(static, unmatched, "", ["streamlint"])
    assert "not run: neither Spark run of the job started this query" in text
    data = report_data(static, as_result(static, unmatched, ["streamlint"]))
    (query,) = data["queries"]
    assert query["confirmation"]["outcome"] == "not-run"
    assert "started this query" in query["confirmation"]["reason"]


def test_missing_pyspark_names_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyspark" else real(name, *a))
    case = JOBS / "refactor_helper_extracted"
    assert main(["diff", str(case / "old.py"), str(case / "new.py"), "--confirm"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'streamlint[spark]'" in err and "pyspark" in err


def test_missing_java_names_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    case = JOBS / "refactor_helper_extracted"
    assert main(["diff", str(case / "old.py"), str(case / "new.py"), "--confirm"]) == 2
    assert "Java 17" in capsys.readouterr().err


@pytest.mark.spark
def test_a_processing_time_timeout_runs_without_empty_batches(spark: SparkSession) -> None:
    """applyInPandasWithState with a processing-time timeout: under availableNow Spark plans
    empty batches forever (measured: the session-window example of Spark's own repository,
    tests/realworld, ran past every timeout). The runs plan no batch without new rows, so the
    pair is compared; the same code on both sides writes the same rows after the restart."""
    case = JOBS / "pandas_processing_time_timeout"
    confirmation = confirm_files(case / "old.py", case / "new.py", spark, timeout=120)
    assert confirmation.problem is None
    assert [q.outcome for q in confirmation.queries] == ["same-results"]
    assert any("noDataMicroBatches.enabled=false" in w for w in confirmation.warnings)
    assert not spark.streams.active


@pytest.mark.spark
def test_a_run_that_never_finishes_is_reported(spark: SparkSession) -> None:
    """The same job planning empty batches itself (Spark's default, set in the job, which
    wins over the sandbox's setting): the run is stopped and the pair reported unconfirmed."""
    case = JOBS / "pandas_timeout_empty_batches_on"
    confirmation = confirm_files(case / "old.py", case / "new.py", spark, timeout=10)
    assert confirmation.queries == ()
    assert confirmation.problem is not None and "still ran after 10 s" in confirmation.problem
    assert not spark.streams.active


@pytest.mark.spark
def test_the_command_line_shows_the_report_and_none_of_sparks_own_output() -> None:
    """As users run it: a new process and JVM. Stopping the never-ending run used to print
    Spark's StackOverflowError (a recursive regex over the Python error, in the stopped query's
    thread) a thousand lines deep, after Spark's start-up warnings."""
    case = JOBS / "pandas_timeout_empty_batches_on"
    done = subprocess.run(
        [sys.executable, "-m", "streamlint", "diff", str(case / "old.py"), str(case / "new.py"),
         "--confirm", "--confirm-timeout", "8"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "still ran after 8 s" in done.stdout
    noise = [line for line in done.stderr.splitlines()
             if not line.startswith("WARNING: Using incubator modules")]  # the JVM's own
    assert noise == [], noise[:20]


@pytest.mark.spark
def test_input_file_name_is_the_same_data_in_the_restarted_and_the_fresh_run(
        spark: SparkSession) -> None:
    """A stateless CSV -> Delta job that stamps input_file_name() gains a source column: Spark's
    guide allows projection changes of a stateless query, and both runs read the same files
    (each under its own temporary folder, which must not count as a difference)."""
    case = Path(__file__).parent / "corpus" / "source_schema_column_added"
    confirmation = confirm_files(case / "old.py", case / "new.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "same-results", query.example_difference
    assert query.restarted_rows > 0


def test_synthetic_input_shows_what_a_restart_changes() -> None:
    """The input's properties that let a small run tell a compatible restart from a wrong
    one: keys with several values, groups continued after the restart, nulls, and rows that
    only one source has."""
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

    from streamlint.spark.synthetic import rows

    schema = StructType([StructField(name, kind) for name, kind in (
        ("user_id", StringType()), ("account", StringType()), ("merchant", StringType()),
        ("amount", DoubleType()), ("ts", TimestampType()))])
    other = StructType([*schema.fields[:3], StructField("clicked_at", TimestampType())])
    pool = ("paid", "refunded", "pending", "void", "a", "b", "c", "d")
    first, second = rows(schema, 1, pool), rows(schema, 2, pool)
    merchants: dict[str, list[str]] = {}
    for row in first:
        merchants.setdefault(row["user_id"], []).append(row["merchant"])
    assert any(len(set(values)) > 1 for values in merchants.values())  # first != last
    last_time = max(row["ts"] for row in first)
    carried = [row for row in second if row["ts"] > last_time and row["ts"][:10] == "2024-01-01"]
    assert carried and {row["user_id"] for row in carried} <= set(merchants)
    assert any(row["merchant"] is None and row["user_id"] is not None for row in first)
    assert any(row["user_id"] is None and row["merchant"] is not None for row in first)
    assert all(row["ts"] is not None for row in first)
    keys = {row["user_id"] for row in first}
    assert keys - {row["user_id"] for row in rows(other, 1, pool)}  # unmatched in a join


def test_a_batch_that_failed_in_the_stand_in_sink_reports_what_failed() -> None:
    """The stand-in sink collects each batch in Python, so a failed batch reaches the report
    wrapped as 'An exception was raised by the Python Proxy': the summary names Spark's task
    failure, or the job's own Python error, instead."""
    from streamlint.spark.error_text import error_summary

    proxy = ("An exception was raised by the Python Proxy. Return Message: Traceback (most "
             "recent call last):\n  File \"sandbox.py\", line 203, in collect\n"
             "py4j.protocol.Py4JJavaError: An error occurred while calling o234.collectToPython.\n")
    task = (": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in "
            "stage 8.0 failed 1 times, most recent failure: Lost task 0.0 in stage 8.0 (TID 8) "
            "(192.0.2.2 executor driver): java.lang.NullPointerException: Cannot invoke "
            "\"org.apache.spark.unsafe.types.UTF8String.getBaseObject()\" because \"input\" "
            "is null")
    assert error_summary(proxy + task).startswith("java.lang.NullPointerException: Cannot invoke")
    python = ("pyspark.errors.exceptions.base.PySparkRuntimeError: Error updating value state: "
              "[STRUCT_ARRAY_LENGTH_MISMATCH] Input row doesn't have expected number of values")
    assert error_summary(proxy + python) == python


_HELPER_JOB = '''"""Revenue per customer; the aggregation lives in the team's helper module."""
from pyspark.sql import SparkSession

from mylib.transforms import revenue

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.schema("customer STRING, amount LONG, ts TIMESTAMP").json("/landing/o")
(
    revenue(orders).writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/revenue").toTable("gold.revenue")
)
'''
_HELPER = '''from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def revenue(orders: DataFrame) -> DataFrame:
    return orders.groupBy("customer").agg(F.{function}("amount").alias("revenue"))
'''


@pytest.mark.spark
def test_each_version_runs_its_own_helper_module(spark: SparkSession, tmp_path: Path) -> None:
    """The same job file in two versions of a repository whose helper module changed sum to
    max: each run imports its own version's helper (the old one, cached from the first run,
    would make Spark compare the old code with itself and find nothing). sum -> max on a LONG
    column keeps the state schema, so Spark restarts and the rows differ (tests/spark_cases/
    agg_sum_to_max). Nothing is written next to the user's modules."""
    for version, function in (("old", "sum"), ("new", "max")):
        (tmp_path / version / "mylib").mkdir(parents=True)
        (tmp_path / version / "job.py").write_text(_HELPER_JOB)
        (tmp_path / version / "mylib" / "__init__.py").write_text("")
        (tmp_path / version / "mylib" / "transforms.py").write_text(
            _HELPER.format(function=function))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "results-differ", query
    assert "max" in str(query.new_state) and "sum" in str(query.old_state)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert "mylib" not in sys.modules and "mylib.transforms" not in sys.modules


_PACKAGED_JOB = '''"""A job of a packaged repository, started as `python jobs/job.py PORT`."""
import os
import sys

from pyspark import SparkContext
from pyspark.sql import SparkSession
from teamlib.transforms import revenue

sc = SparkContext()  # the old style: one context, made before the session
spark = SparkSession.builder.getOrCreate()
port = int(sys.argv[1])
schema = open("orders.ddl").read()  # next to the job: it runs from its folder
os.makedirs("processed", exist_ok=True)  # ... but what it creates there is not kept
orders = spark.readStream.schema(schema).json("/landing/orders")
revenue(orders).writeStream.format("delta").outputMode("complete").option(
    "checkpointLocation", "/chk/revenue").toTable("gold.revenue")
'''


@pytest.mark.spark
def test_a_packaged_job_runs_as_its_authors_run_it(spark: SparkSession, tmp_path: Path) -> None:
    """tests/realworld: jobs import their repository's package from `src/` (atc-dataplatform)
    or next to a setup.py (dataproc-templates), read files relative to their folder
    (LearningJournal's Avro schema), make a SparkContext first (delta-io's examples) and
    parse their arguments as numbers (a socket port): each stopped the run before its
    queries. All of them run now, and nothing is written into the repository (a folder the
    job creates by a relative path lands in a temporary folder of links)."""
    for version, function in (("old", "sum"), ("new", "max")):
        root = tmp_path / version
        (root / "src" / "teamlib").mkdir(parents=True)
        (root / "jobs").mkdir()
        (root / "pyproject.toml").write_text("[project]\nname = 'team'\n")
        (root / "src" / "teamlib" / "__init__.py").write_text("")
        (root / "src" / "teamlib" / "transforms.py").write_text(
            _HELPER.format(function=function))
        (root / "jobs" / "orders.ddl").write_text("customer STRING, amount BIGINT")
        (root / "jobs" / "job.py").write_text(_PACKAGED_JOB)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    confirmation = confirm_files(tmp_path / "old" / "jobs" / "job.py",
                                 tmp_path / "new" / "jobs" / "job.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "results-differ", query
    assert "sys.argv[1]" in "\n".join(confirmation.warnings)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert "teamlib" not in sys.modules
    assert spark.sparkContext._jsc is not None  # the shared context was not stopped


def _sum_to_max(spark: SparkSession, tmp_path: Path, job: str) -> Any:
    """`job` (a template with `{function}`) with sum in the old version and max in the new,
    confirmed: one query, Spark restarted it, and its rows differ from a fresh run's."""
    for version, function in (("old", "sum"), ("new", "max")):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(job.format(function=function))
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "results-differ", query
    return confirmation


_THIRD_PARTY_JOB = '''"""Imports libraries this machine does not have (tests/realworld:
atc-dataplatform's `deprecated`, dataproc-templates' `google.auth`, kedro's base class)."""
from deprecated import deprecated
from google.auth import default as google_credentials
from kedro.io.core import AbstractDataset
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
import pandas_not_here_either as pd2  # noqa

credentials = google_credentials()


class Orders(AbstractDataset):
    def __init__(self, path):
        super().__init__(path=path)
        self.path = path

    @deprecated(reason="use load_stream")
    def load(self):
        return spark.readStream.schema("customer STRING, amount LONG").json(self.path)


spark = SparkSession.builder.getOrCreate()
orders = Orders("/landing/o").load()
(
    orders.groupBy("customer").agg(F.{function}("amount").alias("revenue"))
    .writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/revenue").toTable("gold.revenue")
)
'''


@pytest.mark.spark
def test_a_job_importing_libraries_not_installed_here_runs_on_stand_ins(
        spark: SparkSession, tmp_path: Path) -> None:
    """`deprecated`, `google.auth`, `kedro` and a made-up module are not installed: each
    gets a stand-in (a decorator that leaves the method as written, a callable, a base class
    the job's own class derives from), each is named in the warnings, and Spark gives its
    outcome (sum -> max: the rows differ). The stand-ins are gone after the run, and pyspark's
    own optional imports are left alone."""
    confirmation = _sum_to_max(spark, tmp_path, _THIRD_PARTY_JOB)
    warnings = "\n".join(confirmation.warnings)
    for module in ("deprecated", "kedro", "pandas_not_here_either"):
        assert f"module `{module}` is not installed here" in warnings, warnings
    # `google` is a namespace package where protobuf is installed: then `google.auth` is named.
    assert ("module `google` is not installed here" in warnings
            or "module `google.auth` is not installed here" in warnings), warnings
    assert not any(name.split(".")[0] in {"deprecated", "kedro", "pandas_not_here_either"}
                   for name in sys.modules)
    import importlib.util

    assert importlib.util.find_spec("deprecated") is None


def test_stand_ins_answer_only_the_jobs_own_imports(tmp_path: Path) -> None:
    """An import made by code outside the job's folders (a library probing for an optional
    dependency) still fails as it would."""
    from streamlint.spark.missing_modules import stand_ins

    (tmp_path / "mine.py").write_text("import not_installed_anywhere as x\nVALUE = x.thing\n")
    warned: list[str] = []
    sys.path.insert(0, str(tmp_path))
    try:
        with stand_ins([str(tmp_path)], warned.append):
            import mine  # type: ignore[import-not-found]

            assert mine.VALUE.__qualname__ == "not_installed_anywhere.thing"
            with pytest.raises(ImportError):
                import also_not_installed  # type: ignore[import-not-found]  # noqa: F401
        assert warned == ["module `not_installed_anywhere` is not installed here: a stand-in "
                          "answered the names the job takes from it (its code did not run)"]
        assert "not_installed_anywhere" not in sys.modules
        # A library installed inside the repository (a virtualenv there) is not the job: the
        # suite's own pyspark once got a stand-in IPython this way, and every run failed.
        installed = tmp_path / ".venv" / "lib" / "site-packages"
        installed.mkdir(parents=True)
        (installed / "probing.py").write_text("try:\n    import optional_dependency\n"
                                              "    FOUND = True\nexcept ImportError:\n"
                                              "    FOUND = False\n")
        sys.path.insert(0, str(installed))
        with stand_ins([str(tmp_path)], warned.append):
            import probing  # type: ignore[import-not-found]

            assert probing.FOUND is False
    finally:
        for path in (str(tmp_path), str(tmp_path / ".venv" / "lib" / "site-packages")):
            if path in sys.path:
                sys.path.remove(path)
        sys.modules.pop("mine", None)
        sys.modules.pop("probing", None)


def test_the_arguments_a_job_checks_for_are_given(tmp_path: Path) -> None:
    from streamlint.spark.stubs import _arguments_needed

    cases = {"import sys\nenv = sys.argv[2]\n": 2,
             "import sys\nif len(sys.argv) < 4:\n    sys.exit('usage')\n": 3,
             "import sys\nif len(sys.argv) != 2:\n    raise SystemExit(1)\n": 1,
             "from sys import argv\nif len(argv) <= 2:\n    exit()\nx = argv[1]\n": 2,
             "import argparse\nargparse.ArgumentParser().parse_args()\n": 0}
    for number, (text, needed) in enumerate(cases.items()):
        job = tmp_path / f"job{number}.py"
        job.write_text(text)
        assert _arguments_needed(job) == needed, text


_EXITING_NOTEBOOK = '''# Databricks notebook source
import sys

if len(sys.argv) < 3:
    sys.exit("usage: job.py ENV RUN_DATE")
env, run_date = sys.argv[1], sys.argv[2]
orders = spark.readStream.schema("customer STRING, amount LONG").json(f"/landing/{env}/orders")
totals = orders.groupBy("customer").agg({"amount": "sum"})
totals.writeStream.format("delta").outputMode("complete").option(
    "checkpointLocation", f"/chk/{env}/totals").toTable("gold.totals")

# COMMAND ----------

dbutils.notebook.exit("started")

# COMMAND ----------

raise RuntimeError("a cell after dbutils.notebook.exit() must not run")
'''


@pytest.mark.spark
def test_a_job_that_checks_its_arguments_and_exits_its_notebook_runs(
        spark: SparkSession, tmp_path: Path) -> None:
    """`len(sys.argv) < 3` gets enough placeholder arguments to go on, and
    dbutils.notebook.exit() ends the notebook as on Databricks: the query is confirmed and the
    cell after it never runs."""
    for version in ("old", "new"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(_EXITING_NOTEBOOK)
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "same-results", query
    warnings = "\n".join(confirmation.warnings)
    assert "sys.argv[1] to sys.argv[2] were given" in warnings
    assert "dbutils.notebook.exit() ended the notebook" in warnings


_PARSING_JOB = '''"""Bookings per hotel per hour; the app sends times as text."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
bookings = (
    spark.readStream.format("kafka").option("kafka.bootstrap.servers", "broker.invalid:9092")
    .option("subscribe", "bookings").load()
    .select(F.from_json(F.col("value").cast("string"),
                        "hotel STRING, nights STRING, booked_at STRING").alias("b"))
    .select("b.*")
    .withColumn("booked_at", F.to_timestamp("booked_at", "yyyy-MM-dd HH:mm"))
    .withColumn("nights", F.col("nights").cast("int"))
    .withWatermark("booked_at", "1 hour")
)
per_hour = bookings.groupBy(F.window("booked_at", "1 hour"), "hotel").agg(
    F.sum("nights").alias("nights"))
per_hour.writeStream.format("delta").outputMode("append").option(
    "checkpointLocation", "/chk/bookings").toTable("gold.bookings_per_hour")
'''


@pytest.mark.spark
def test_a_job_that_parses_strings_is_confirmed(spark: SparkSession, tmp_path: Path) -> None:
    """A text time column gets times in the format the job parses (`yyyy-MM-dd HH:mm`), so
    windows fill and close; other synthetic strings are not numbers for the cast, which under
    ANSI mode would fail the first batch (CAST_INVALID_INPUT): the runs turn ANSI off for such
    a job, say so, and reach Spark's outcome."""
    for version in ("old", "new"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(_PARSING_JOB)
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "same-results", query
    assert query.restarted_rows > 0
    assert "spark.sql.ansi.enabled=false" in "\n".join(confirmation.warnings)


def test_text_times_are_found_by_how_the_job_parses_them_or_by_their_name() -> None:
    """tests/realworld/LearningJournal__Spark-Streaming-In-Python/08-TumblingWindowDemo parses
    `CreatedTime` with to_timestamp: a word there became null, the window dropped every row,
    and Spark's outcome was "no rows to compare"."""
    from pyspark.sql import types as T

    from streamlint.spark.synthetic import _is_time_text, literal_pool

    pool = literal_pool('df.withColumn("Received", to_timestamp(col("Received"), "yyyy-MM-dd"))\n'
                        'x = F.to_date("d.ShipDay")\n')
    assert pool.time_columns == {"Received", "ShipDay"}
    assert pool.time_format == "%Y-%m-%d"

    def field(name: str, kind: T.DataType | None = None) -> T.StructField:
        return T.StructField(name, kind or T.StringType())

    assert _is_time_text(field("Received"), pool) and _is_time_text(field("ShipDay"), pool)
    for name in ("CreatedTime", "updatedAt", "created_at", "event_time", "ts", "OrderDate"):
        assert _is_time_text(field(name)), name
    for name in ("Received", "StoreID", "Station", "lifetime", "status", "data"):
        assert not _is_time_text(field(name)), name
    assert not _is_time_text(field("CreatedTime", T.LongType()))


@pytest.mark.spark
def test_a_camel_case_text_time_fills_its_windows(spark: SparkSession, tmp_path: Path) -> None:
    job = _PARSING_JOB.replace("booked_at", "BookedAt").replace('"yyyy-MM-dd HH:mm"', "")
    for version in ("old", "new"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(job)
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    (query,) = confirmation.queries
    assert query.outcome == "same-results", query
    assert query.restarted_rows > 0


def test_a_long_state_schema_is_shown_around_what_changed() -> None:
    """approx_count_distinct keeps 52 fields: the report shows the changed field and its
    neighbours, once per side, not 52 fields four times."""
    from streamlint.spark.confirm import QueryConfirmation
    from streamlint.spark.report import _state_lines
    from streamlint.spark.state_schema import StoreSchema

    value = "struct<" + ",".join(f"MS[{i}]:bigint" for i in range(52)) + ">"
    changed = value.replace("MS[30]:bigint", "MS[30]:int")
    confirmed = QueryConfirmation(
        QueryKey("name", "k"), "q", "restart-fails",
        old_state=(StoreSchema(0, "default", "struct<k:string>", value),),
        new_state=(StoreSchema(0, "default", "struct<k:string>", changed),))
    text = "\n".join(_state_lines(confirmed))
    assert "MS[30]:bigint" in text and "MS[30]:int" in text and "MS[5]:" not in text
    assert text.count("(52 fields)") == 2 and "key: struct<k:string> (unchanged)" in text
    assert len(text) < 600


def test_a_table_schema_is_inferred_from_how_the_job_uses_it() -> None:
    from streamlint.extract import extract_text
    from streamlint.spark.inferred_schemas import inferred_schemas

    job = extract_text(_TABLE_JOB.replace("{function}", "sum"), "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert (guess.name, guess.ddl) == (
        "bronze.orders", "amount DOUBLE, customer_id STRING, order_ts TIMESTAMP, status STRING")
    assert inferred_schemas(job.queries, {"bronze.orders": "x STRING"}) == []  # config wins


def test_a_struct_column_read_by_its_fields_is_inferred_as_a_struct() -> None:
    """tests/realworld/LearningJournal__Spark-Streaming-In-Python/02-FileStreamDemo reads
    `DeliveryAddress.City`: a flat guess (`City STRING`) left Spark unable to resolve it."""
    from streamlint.extract import extract_text
    from streamlint.spark.inferred_schemas import inferred_schemas

    job = extract_text('''from pyspark.sql import functions as F
df = spark.readStream.table("bronze.invoices")
out = df.selectExpr("InvoiceNumber", "DeliveryAddress.City", "DeliveryAddress.PinCode") \\
    .withColumn("state", F.col("DeliveryAddress")["State"]).withColumn("n", F.col("Nested.a.b"))
out.writeStream.option("checkpointLocation", "/chk/i").toTable("silver.invoices")
''', "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert guess.ddl == ("DeliveryAddress STRUCT<City: STRING, PinCode: STRING, State: STRING>, "
                         "InvoiceNumber STRING, Nested STRUCT<a: STRUCT<b: STRING>>")


def test_an_exploded_column_is_inferred_as_an_array_of_what_is_read_from_it() -> None:
    """tests/realworld/LearningJournal__Spark-Streaming-In-Python/02-FileStreamDemo explodes
    `InvoiceLineItems` and reads `LineItem.ItemCode` from each element: guessed as a STRING,
    Spark refused explode (DATATYPE_MISMATCH) and the job never started."""
    from streamlint.extract import extract_text
    from streamlint.spark.inferred_schemas import inferred_schemas

    job = extract_text('''from pyspark.sql import functions as F
df = spark.readStream.table("bronze.invoices")
out = (df.selectExpr("InvoiceNumber", "explode(InvoiceLineItems) as LineItem")
       .withColumn("ItemCode", F.expr("LineItem.ItemCode"))
       .withColumn("Qty", F.col("LineItem.ItemQty"))
       .withColumn("tag", F.explode_outer("Tags")))
out.writeStream.option("checkpointLocation", "/chk/i").toTable("silver.invoices")
''', "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert guess.ddl == ("InvoiceLineItems ARRAY<STRUCT<ItemCode: STRING, ItemQty: STRING>>, "
                         "InvoiceNumber STRING, Tags ARRAY<STRING>")


@pytest.mark.spark
def test_spark_reads_an_inferred_struct_schema(spark: SparkSession) -> None:
    assert spark.createDataFrame([], "DeliveryAddress STRUCT<City: STRING, `Pin Code`: STRING>, "
                                 "n DOUBLE").schema.simpleString() == (
        "struct<DeliveryAddress:struct<City:string,Pin Code:string>,n:double>")


_TABLE_JOB = '''from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
orders = spark.readStream.table("bronze.orders").withWatermark("order_ts", "10 minutes")
revenue = (orders.where(F.col("status") == "PAID")
           .groupBy(F.window("order_ts", "5 minutes"), "customer_id")
           .agg(F.{function}("amount").alias("revenue"), F.count("*").alias("n")))
(revenue.writeStream.format("delta").outputMode("update")
 .option("checkpointLocation", "/chk/revenue").toTable("gold.revenue"))
'''


@pytest.mark.spark
def test_a_table_without_configuration_is_confirmed_on_an_inferred_schema(
        spark: SparkSession, tmp_path: Path) -> None:
    """`spark.readStream.table("bronze.orders")` with no [tool.streamlint.tables] entry: the
    schema comes from the job's use of the columns, the report says so, and Spark answers
    (sum -> max of the same DOUBLE buffer: it restarts and the rows differ)."""
    for version, function in (("old", "sum"), ("new", "max")):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(_TABLE_JOB.replace("{function}", function))
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == "results-differ", query
    assert "no schema for bronze.orders: inferred" in "\n".join(confirmation.warnings)


@pytest.mark.parametrize("fmt", ["github", "sarif", "markdown"])
def test_spark_stricter_than_static_shows_in_every_format(fmt: str) -> None:
    """`diff --confirm` in the pull-request formats (text and JSON only, before): the result
    carries Spark's outcome, so a restart Spark shows corrupting results is an error there
    too, never a green "compatible" beside exit code 1."""
    import jsonschema

    from streamlint.report import render_result
    from streamlint.report.result import Result
    from streamlint.spark.confirm import QueryConfirmation
    from streamlint.spark.report import as_result

    case = JOBS / "refactor_helper_extracted"
    static = diff_files(str(case / "old.py"), str(case / "new.py"), "4.3")
    assert static.verdict == "compatible"
    corrupt = Confirmation("4.3.0", (QueryConfirmation(
        QueryKey("checkpoint", "s3://ads/_chk/campaign_spend"), "q", "results-differ"),))
    result = Result((static,), single=True,
                    confirmation=as_result(static, corrupt, ["streamlint", "diff"]))
    assert result.verdict == "incompatible"
    out = render_result(fmt, result, str(case))
    if fmt == "github":
        assert "::error title=Spark 4.3.0 confirmation::query " in out
        assert "results differ" in out
        assert out.rstrip().splitlines()[-1].startswith("streamlint: incompatible")
    elif fmt == "sarif":
        data = json.loads(out)
        schema = Path(__file__).resolve().parents[1] / "tests" / "data" / "sarif-schema-2.1.0.json"
        jsonschema.validate(data, json.loads(schema.read_text()))
        run = data["runs"][0]
        assert run["properties"]["verdict"] == "incompatible"
        assert run["properties"]["confirmation"]["static_verdict"] == "compatible"
        levels = [n["level"] for n in run["invocations"][0]["toolExecutionNotifications"]]
        assert "error" in levels
        assert run["invocations"][0]["executionSuccessful"] is True
    else:
        assert out.startswith("### ❌ streamlint: incompatible")
        assert "results differ" in out and "Spark 4.3.0 confirmation" in out


_PIPELINE = '''import dlt
from pyspark.sql import functions as F


@dlt.table
def clicks_raw():
    return (spark.readStream.format("kafka").option("subscribe", "clicks").load()
            .select(F.col("key").cast("string").alias("user"),
                    F.col("value").cast("string").alias("page")))


@dlt.table(name="clicks_per_user")
@dlt.expect_or_drop("known user", "user IS NOT NULL")
def per_user():
    return dlt.read_stream("clicks_raw").dropDuplicates({keys})


@dlt.table
def top_users():
    return dlt.read("clicks_per_user").groupBy("user").count()
'''


@pytest.mark.spark
def test_a_dlt_pipeline_is_confirmed_table_by_table(spark: SparkSession, tmp_path: Path) -> None:
    """tests/realworld/dave90__delta-live-tables-examples: `import dlt` failed, so no pipeline
    was ever confirmed. The stand-in runs each streaming table as the pipeline's update would,
    paired with the static flows (`pipeline flow <table>/<flow>`); the materialized view
    (`top_users`, a batch read) is not a query."""
    from streamlint.workflow.files import diff_files

    for version, keys in (("old", ["user"]), ("new", ["user", "page"])):
        (tmp_path / version).mkdir()
        (tmp_path / version / "pipeline.py").write_text(_PIPELINE.format(keys=keys))
    old, new = tmp_path / "old" / "pipeline.py", tmp_path / "new" / "pipeline.py"
    static = diff_files(str(old), str(new))
    assert sorted(q.sink.checkpoint for q, _ in static.pairs) == [
        "pipeline flow clicks_per_user/clicks_per_user", "pipeline flow clicks_raw/clicks_raw"]
    confirmation = confirm_files(old, new, spark)
    assert confirmation.problem is None, confirmation.problem
    outcomes = {q.label: q.outcome for q in confirmation.queries}
    assert outcomes == {"clicks_per_user": "restart-fails", "clicks_raw": "same-results"}, (
        confirmation.queries)
    assert static.verdict == "incompatible"


@pytest.mark.spark
def test_a_file_source_on_this_machine_gives_its_own_schema(spark: SparkSession,
                                                            tmp_path: Path) -> None:
    """tests/realworld/JTupitza-UVA__DS-2002 reads sample CSVs kept in the repository with
    header and inferSchema: "no schema" stopped every pair. The files' own schema is read
    (never written); a path that is not here still asks for one."""
    from streamlint.spark.sandbox import CannotConfirm, Sandbox
    from streamlint.spark.synthetic import literal_pool

    data = tmp_path / "lab_data"
    data.mkdir()
    (data / "patients.csv").write_text("mrn,name,visits\n1,Ann,3\n2,Bob,5\n")
    before = sorted(tmp_path.rglob("*"))
    sandbox = Sandbox(tmp_path / "work", {}, literal_pool(""), plan=True, session=spark)
    spec = sandbox.source_spec("csv", str(data), {"header": "true", "inferSchema": "true"}, None)
    assert spec.schema.simpleString() == "struct<mrn:int,name:string,visits:int>"
    assert any("read from the files there" in w for w in sandbox.warnings)
    assert sorted(p for p in tmp_path.rglob("*") if "work" not in p.parts) == before
    with pytest.raises(CannotConfirm, match="no schema for the csv source"):
        sandbox.source_spec("csv", str(tmp_path / "elsewhere"), {"header": "true"}, None)


@pytest.mark.spark
def test_a_job_that_waits_on_its_query_in_a_loop_is_stopped(spark: SparkSession,
                                                            tmp_path: Path) -> None:
    """tests/realworld/JTupitza-UVA__DS-2002 (Demo-02) polls `query.recentProgress` until a
    number of batches ran: the runs' availableNow queries end first, and the loop never did
    (the whole confirmation hung). The timeout now interrupts the job's own code too, and
    the pair is "cannot confirm" with that reason."""
    job = ('import time\n'
           'df = spark.readStream.format("rate").load()\n'
           'q = df.writeStream.format("delta").option("checkpointLocation", "/chk/r")'
           '.start("/t/r")\n'
           'while len(q.recentProgress) < 1000:\n'
           '    time.sleep(0.2)\n')
    for version in ("old", "new"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(job)
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark,
                                 timeout=8)
    assert confirmation.queries == ()
    assert confirmation.problem is not None
    assert "cannot confirm: the job's own code still ran after 8 s" in confirmation.problem


@pytest.mark.spark
def test_a_library_whose_queries_nothing_calls_says_why_it_is_not_confirmed(
        spark: SparkSession, tmp_path: Path) -> None:
    """tests/realworld: kedro's SparkStreamingDataset and feast's processor build their
    queries in methods the file never calls; run as a script, neither version starts one.
    That is a reason, said, not an empty confirmation."""
    job = '''from pyspark.sql import SparkSession


class Dataset:
    def save(self, df):
        df.writeStream.option("checkpointLocation", "/chk/{name}").toTable("out")

    def load(self):
        spark = SparkSession.builder.getOrCreate()
        return spark.readStream.schema("a STRING").json("/in")
'''
    for version, name in (("old", "a"), ("new", "b")):
        (tmp_path / version).mkdir()
        (tmp_path / version / "job.py").write_text(job.format(name=name))
    confirmation = confirm_files(tmp_path / "old" / "job.py", tmp_path / "new" / "job.py", spark)
    assert confirmation.queries == ()
    assert confirmation.problem is not None
    assert "neither version started a streaming query" in confirmation.problem


def test_avro_schemas_read_as_the_types_sparks_avro_reader_gives() -> None:
    from streamlint.spark.avro import spark_type

    schema = {"type": "record", "name": "Invoice", "fields": [
        {"name": "id", "type": "string"},
        {"name": "amount", "type": ["null", "double"]},
        {"name": "count", "type": "long"},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal",
                                   "precision": 9, "scale": 2}},
        {"name": "items", "type": {"type": "array", "items": {
            "type": "record", "name": "Item", "fields": [{"name": "code", "type": "int"}]}}},
        {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B"]}},
        {"name": "tags", "type": {"type": "map", "values": "string"}}]}
    assert spark_type(schema) == (
        "struct<`id`: string, `amount`: double, `count`: bigint, `at`: timestamp, "
        "`price`: decimal(9,2), `items`: array<struct<`code`: int>>, `kind`: string, "
        "`tags`: map<string, string>>")
    with pytest.raises(ValueError):
        spark_type(["int", "string"])  # a union of two types: pyspark's own from_avro stays


_AVRO_JOB = '''import json
from pyspark.sql import SparkSession
from pyspark.sql.avro.functions import from_avro
from pyspark.sql.functions import col, {function}

spark = SparkSession.builder.getOrCreate()
schema = json.dumps({{"type": "record", "name": "Invoice", "fields": [
    {{"name": "CustomerCardNo", "type": "string"}},
    {{"name": "TotalAmount", "type": "double"}}]}})
raw = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "localhost:9092")
       .option("subscribe", "invoices").load())
invoices = raw.select(from_avro(col("value"), schema).alias("value")).select("value.*")
(invoices.groupBy("CustomerCardNo").agg({function}("TotalAmount").alias("rewards"))
 .writeStream.format("console").outputMode("update")
 .option("checkpointLocation", "/chk/rewards").start())
'''


@pytest.mark.spark
def test_a_job_decoding_avro_is_confirmed_through_json(spark: SparkSession,
                                                       tmp_path: Path) -> None:
    """tests/realworld/LearningJournal__Spark-Streaming-In-Python/07-KafkaAvroSourceDemo:
    spark-avro is not on this machine (AVRO_NOT_LOADED_SQL_FUNCTIONS_UNUSABLE) and the
    stand-in Kafka source writes JSON: from_avro is read as from_json of the same types, so
    sum -> max is seen for what it is (the rows differ), and the warnings say so."""
    confirmation = _sum_to_max(spark, tmp_path, _AVRO_JOB)
    assert any("from_avro: the stand-in Kafka source carries JSON" in w
               for w in confirmation.warnings), confirmation.warnings


_STOPS_ITSELF_JOB = '''from pyspark.sql import SparkSession
from pyspark.sql.functions import col, {function}

spark = SparkSession.builder.getOrCreate()
spark.range(0, 5).write.format("delta").save("/tmp/delta-table")
spark.read.format("delta").load("/tmp/delta-table").show()  # the table it just wrote
counts = (spark.readStream.format("rate").load()
          .groupBy((col("value") % 3).alias("k")).agg({function}("value").alias("v")))
query = (counts.writeStream.format("console").outputMode("update")
         .option("checkpointLocation", "/tmp/checkpoint").start())
query.awaitTermination(10)
query.stop()
'''


@pytest.mark.spark
def test_a_job_that_reads_what_it_wrote_and_stops_its_own_query_is_confirmed(
        spark: SparkSession, tmp_path: Path) -> None:
    """tests/realworld/delta-io__delta/examples/python/streaming.py: it reads back a table
    its own batch write made (skipped here: "no schema for table /tmp/delta-table"), and
    stops each query after `awaitTermination(10)` (at once here, before any batch: "neither
    run wrote rows"). The read gets the write's schema, and the stand-in's batch runs before
    the job's stop: sum -> max shows."""
    confirmation = _sum_to_max(spark, tmp_path, _STOPS_ITSELF_JOB)
    assert any("no schema for table /tmp/delta-table: the schema of what the job itself "
               "writes there" in w for w in confirmation.warnings), confirmation.warnings


def test_a_source_whose_columns_the_job_never_names_gets_a_one_column_stand_in() -> None:
    """tests/realworld/delta-io__delta/examples/python/streaming.py streams a Delta table to
    the console without naming a column: any schema runs it, both versions get the same."""
    from streamlint.extract import extract_text
    from streamlint.spark.inferred_schemas import PLACEHOLDER, inferred_schemas

    job = extract_text('spark.readStream.format("delta").load("/tmp/t2")'
                       '.writeStream.format("console").start()\n', "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert (guess.name, guess.ddl) == ("/tmp/t2", PLACEHOLDER)
    assert "names none of its columns" in guess.warning


def test_a_column_exploded_under_its_own_name_is_an_array_of_its_elements() -> None:
    """`withColumn("items", explode("items"))` then `items.sku`: inferred as
    ARRAY<ARRAY<STRING>> with `sku` as a column of its own (found in review)."""
    from streamlint.extract import extract_text
    from streamlint.spark.inferred_schemas import inferred_schemas

    job = extract_text('from pyspark.sql import functions as F\n'
                       'df = spark.readStream.table("bronze.orders")\n'
                       'out = df.select("id", F.explode("items").alias("items"))'
                       '.select("id", F.col("items.sku"))\n'
                       'out.writeStream.option("checkpointLocation", "/chk/o").toTable("s.o")\n',
                       "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert guess.ddl == "id STRING, items ARRAY<STRUCT<sku: STRING>>"
