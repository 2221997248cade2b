"""`diff --checkpoint PATH NEW` fails closed: what the checkpoint shows is compared exactly, what
it cannot show is a question (or comes from `--old OLD.py`), never an all-clear.

Each case's expectation comes from Spark 4.3 restarting the edited fixture job on a copy of the
fixture checkpoint (`checkpoint_restart`): refused (sum -> avg, a damaged offset), or accepted
though the results change (a window's size), which only the old code can show.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from checkpoint_fixtures import FIXTURES
from checkpoint_jobs import standalone_job, write_job
from checkpoint_restart import restart_error

from streamlint.checkpoint import read_checkpoint
from streamlint.checkpoint.buffers import ALIASES, BUFFERS, canonical
from streamlint.cli import main

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark

DAMAGED = Path(__file__).parent / "fixtures" / "checkpoints-damaged"
AGG = FIXTURES / "spark-4.3.0" / "agg_hdfs"
WINDOW = FIXTURES / "spark-4.3.0" / "window_agg"
TEN, FIVE = 'F.window("ts", "10 seconds")', 'F.window("ts", "5 seconds")'


def diff(capsys: pytest.CaptureFixture[str], fixture: Path, job: Path, *extra: str
         ) -> tuple[int, dict]:
    code = main(["diff", "--checkpoint", str(fixture / "checkpoint"), str(job),
                 "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def codes(report: dict) -> set[str]:
    return {f["code"] for f in report["findings"]}


def test_sum_to_avg_is_refused_and_read_incompatible(
        spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = 'F.sum("value")', 'F.avg("value")'
    job = write_job(tmp_path, AGG, standalone_job(AGG).replace(old, new))
    code, report = diff(capsys, AGG, job)
    assert (code, report["verdict"]) == (1, "incompatible")
    [finding] = [f for f in report["findings"] if f["code"] == "CK05"]
    assert "keep 3 field(s)" in finding["message"] and "stores 2" in finding["message"]
    error = restart_error(spark, AGG, old, new, tmp_path)
    assert error is not None and "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE" in error, error


def test_a_window_size_is_a_question_without_the_old_code(
        spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old_job = write_job(tmp_path, WINDOW)
    new_job = tmp_path / "new.py"
    new_job.write_text(standalone_job(WINDOW).replace(TEN, FIVE))
    code, report = diff(capsys, WINDOW, new_job)
    assert (code, report["verdict"], codes(report)) == (0, "review", {"CK06"})
    assert "--old OLD.py" in report["findings"][0]["message"]
    # The old code shows what the checkpoint does not: the window changed.
    code, report = diff(capsys, WINDOW, new_job, "--old", str(old_job))
    assert (code, report["verdict"]) == (1, "incompatible")
    assert "CK06" not in codes(report) and "AG04" in codes(report), report["findings"]
    # Spark itself accepts the restart: only the code can show the change.
    assert restart_error(spark, WINDOW, TEN, FIVE, tmp_path) is None


def test_an_unreadable_offset_is_refused_and_read_incompatible(
        spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixture = DAMAGED / "spark-4.3.0" / "agg_hdfs_offset_truncated"
    job = write_job(tmp_path, fixture, standalone_job(fixture))
    code, report = diff(capsys, fixture, job)
    assert (code, report["verdict"]) == (1, "incompatible")
    assert "CK07" in codes(report), report["findings"]
    [source] = read_checkpoint(str(fixture / "checkpoint")).last_committed.sources
    assert source.kind == "unreadable"
    error = restart_error(spark, fixture, "", "", tmp_path)
    assert error is not None, "Spark restarted from a truncated offset"


def test_buffer_names_are_the_ones_spark_stores(spark: SparkSession, tmp_path: Path) -> None:
    """One aggregation with every function streamlint knows the buffer of: the value schema
    Spark writes is their buffers, in order. (Another name of the same function, `mean` for
    `avg`, is the same aggregate, which Spark keeps once.)"""
    from pyspark.sql import functions as F

    functions = sorted({*BUFFERS, "count_if", "bool_and", "bool_or", "try_sum", "try_avg"})
    assert set(functions) - set(BUFFERS) <= set(ALIASES)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text('{"key":"a","value":1,"d":1.5}\n')
    calls = []
    for name in functions:
        if name in ("covar_samp", "covar_pop", "corr"):
            call = getattr(F, name)("value", "d")
        elif name in ("max_by", "min_by"):
            call = getattr(F, name)("key", "value")
        elif name in ("count_if", "bool_and", "bool_or"):
            call = getattr(F, name)(F.col("value") > 0)
        elif name in ("percentile_approx", "approx_percentile"):
            call = getattr(F, name)("value", 0.5)
        else:
            call = getattr(F, name)("value")
        calls.append(call.alias(name))
    df = spark.readStream.schema("key STRING, value LONG, d DOUBLE").json(str(tmp_path / "in"))
    checkpoint = tmp_path / "checkpoint"
    query = (df.groupBy("key").agg(*calls).writeStream.format("noop").outputMode("update")
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.awaitTermination()
    [operator] = read_checkpoint(str(checkpoint)).operators
    stored = [f.name for f in operator.stores[0].schemas[0].value]
    expected = [n for f in functions
                for n in ({"try_sum": ("sum", "isEmpty")}.get(f) or BUFFERS[canonical(f)])]
    assert stored == expected
