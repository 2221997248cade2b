"""What QY17 rests on, measured on real Spark: queries Spark refuses to start whatever the
checkpoint. A continuous trigger refuses a watermark, an aggregation, a deduplication and a
union, and runs a projection; a file sink refuses the update and complete output modes. (A
file sink switched to update on a restart is also a spark case, sink_file_update_mode.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

pytestmark = pytest.mark.spark

CONTINUOUS_REFUSED: dict[str, tuple[Callable[[DataFrame], DataFrame], str]] = {
    "watermark": (lambda df: df.withWatermark("timestamp", "1 minute"), "EventTimeWatermark"),
    "aggregation": (lambda df: df.groupBy("value").count(), "Aggregate"),
    "deduplication": (lambda df: df.dropDuplicates(["value"]), "Deduplicate"),
}


def _start(df: DataFrame, tmp_path: Path, name: str, **how: Any) -> None:
    writer = df.writeStream.format("console").option("checkpointLocation", str(tmp_path / name))
    if "mode" in how:
        writer = writer.outputMode(how["mode"])
    query = writer.trigger(continuous="1 second").start()
    query.stop()


@pytest.mark.parametrize("operator", sorted(CONTINUOUS_REFUSED))
def test_a_continuous_trigger_refuses(spark: SparkSession, tmp_path: Path, operator: str
                                      ) -> None:
    from pyspark.errors import AnalysisException

    build, plan_node = CONTINUOUS_REFUSED[operator]
    df = spark.readStream.format("rate").option("numPartitions", 1).load()
    mode = {"mode": "update"} if operator == "aggregation" else {}
    with pytest.raises(AnalysisException, match=f"does not support {plan_node} operations"):
        _start(build(df), tmp_path, operator, **mode)


def test_a_continuous_trigger_refuses_a_union(spark: SparkSession, tmp_path: Path) -> None:
    from pyspark.errors import AnalysisException

    one = spark.readStream.format("rate").option("numPartitions", 1).load()
    two = spark.readStream.format("rate").option("numPartitions", 1).load()
    with pytest.raises(AnalysisException, match="does not support Union operations"):
        _start(one.union(two), tmp_path, "union")


def test_a_continuous_trigger_runs_a_projection(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.readStream.format("rate").option("numPartitions", 1).load()
    _start(df.selectExpr("value + 1 AS v"), tmp_path, "projection")  # no error


@pytest.mark.parametrize("mode", ["update", "complete"])
def test_a_file_sink_refuses_the_mode(spark: SparkSession, tmp_path: Path, mode: str) -> None:
    from pyspark.errors import AnalysisException

    df = spark.readStream.format("rate").load()
    if mode == "complete":
        df = df.groupBy("value").count()
    writer = (df.writeStream.format("parquet").outputMode(mode)
              .option("checkpointLocation", str(tmp_path / "c"))
              .option("path", str(tmp_path / "o")))
    with pytest.raises(AnalysisException, match="STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE"):
        writer.start().stop()


def test_streamlint_reads_each_refusal_as_qy17() -> None:
    job = """
df = spark.readStream.format("rate").load()
(df.writeStream.format("console").trigger(continuous="1 second")
    .option("checkpointLocation", "/c").start())
"""
    for change in ('df.withWatermark("timestamp", "1 minute")', 'df.dropDuplicates(["value"])'):
        new = job.replace("(df.writeStream", f"({change}.writeStream")
        report = diff_jobs(extract_text(job, "old.py"), extract_text(new, "new.py"))
        assert "QY17" in {f.code for f in report.findings}, change


@pytest.mark.parametrize("fmt", [None, "parquet", "json", "csv", "orc", "text"])
def test_a_file_sink_without_a_path_is_refused_at_start(spark: SparkSession, tmp_path: Path,
                                                         fmt: str | None) -> None:
    # What diff/forks.py `cannot_start` takes from Spark: a writer that set no path (the
    # branch of a helper that handles other formats only) starts no query, and writes no
    # checkpoint, whether a checkpoint is given or not.
    df = spark.readStream.format("rate").option("numPartitions", 1).load()
    for checkpoint in (None, tmp_path / "chk"):
        writer = df.writeStream if fmt is None else df.writeStream.format(fmt)
        if checkpoint is not None:
            writer = writer.option("checkpointLocation", str(checkpoint))
        with pytest.raises(Exception, match="'path' is not specified"):
            writer.start().stop()
    assert not (tmp_path / "chk").exists()
