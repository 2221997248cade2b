"""`--confirm` runs a job's parameters as the static reading reads them, so the query Spark
starts is the query the report names (issue 29, item 3): a widget's default or its bundle's
value, an environment variable's default, and paths made from `__file__` in two checkouts of
one repository.

The jobs are small real ones written here; what Spark does with them comes from Spark's guide
("changes in the aggregation's output schema are not allowed") as measured on pyspark 4.3:
STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE for an aggregate added to a count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.extract import extract_file
from streamlint.model.identity import IN_REPOSITORY, query_path, run_path
from streamlint.spark.parameters import JobParameters, Widgets

COUNT = 'F.count("*").alias("c")'
COUNT_AND_SUM = 'F.count("*").alias("c"), F.sum("n").alias("s")'

NOTEBOOK = '''\
# Databricks notebook source
from pyspark.sql import functions as F

dbutils.widgets.text("checkpoint_root", "/mnt/chk/orders")
dbutils.widgets.text("topic", "orders")
root = dbutils.widgets.get("checkpoint_root")
topic = dbutils.widgets.get("topic")

# COMMAND ----------

orders = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "b:9092")
          .option("subscribe", topic).load()
          .select(F.from_json(F.col("value").cast("string"), "id STRING, n LONG").alias("o"))
          .select("o.*"))
(orders.groupBy("id").agg(AGGREGATES).writeStream.outputMode("update")
 .format("delta").option("checkpointLocation", f"{root}/agg").toTable("counts"))
'''

SCRIPT = '''\
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("STREAMLINT_TEST_UNSET_OUT", "counts")

spark = SparkSession.builder.getOrCreate()
orders = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "b:9092")
          .option("subscribe", "orders").load()
          .select(F.from_json(F.col("value").cast("string"), "id STRING, n LONG").alias("o"))
          .select("o.*"))
(orders.groupBy("id").agg(AGGREGATES).writeStream.outputMode("update")
 .format("delta").option("checkpointLocation", os.path.join(HERE, "checkpoints", "counts"))
 .toTable(OUT))
(orders.writeStream.format("delta").option("checkpointLocation", f"{HERE}/checkpoints/raw")
 .toTable("raw"))
'''

BUNDLE = '''\
bundle:
  name: orders
resources:
  jobs:
    ingest:
      name: ingest
      tasks:
        - task_key: ingest
          notebook_task:
            notebook_path: ./job.py
            base_parameters:
              checkpoint_root: /Volumes/main/orders/checkpoints
'''


def _checkouts(tmp_path: Path, text: str, extra: dict[str, str] | None = None
               ) -> tuple[Path, Path]:
    """The job as two checkouts of one repository (old, new): each its own folder."""
    jobs = []
    for side, aggregates in (("old", COUNT), ("new", COUNT_AND_SUM)):
        folder = tmp_path / side / "repo"
        folder.mkdir(parents=True)
        (folder / "pyproject.toml").write_text("[project]\nname = 'orders'\n")
        for name, content in (extra or {}).items():
            (folder / name).write_text(content)
        job = folder / "job.py"
        job.write_text(text.replace("AGGREGATES", aggregates))
        jobs.append(job)
    return jobs[0], jobs[1]


# -- the identity both readings give a path --------------------------------------------------


def test_a_path_made_from_file_is_its_place_in_the_repository(tmp_path: Path) -> None:
    old, _ = _checkouts(tmp_path, SCRIPT)
    checkpoints = [query_path(q.sink.checkpoint) for q in extract_file(str(old)).queries]
    assert checkpoints == [f"{IN_REPOSITORY}checkpoints/counts", f"{IN_REPOSITORY}checkpoints/raw"]
    root = str(old.parent)
    # What the run's `os.path.join(HERE, ...)` gives, in either checkout.
    assert run_path(f"{root}/checkpoints/counts", root) == checkpoints[0]
    assert run_path(f"file:{root}/checkpoints/raw/", root) == checkpoints[1]
    assert run_path("/mnt/chk/orders", root) == "/mnt/chk/orders"


def test_paths_pair_by_their_normal_form() -> None:
    assert query_path("dbfs:/chk/orders/") == query_path("/dbfs/chk/orders")
    assert query_path("s3a://bucket/chk") == query_path("s3://bucket/chk/")


def test_the_other_ways_to_build_a_path_from_file_are_the_same_place(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text('''\
import os
from pathlib import Path
from pyspark.sql import SparkSession

HERE = os.path.dirname(os.path.abspath(__file__))
spark = SparkSession.builder.getOrCreate()
df = spark.readStream.format("rate").load()
df.writeStream.option("checkpointLocation", HERE + "/chk/a").toTable("a")
df.writeStream.option("checkpointLocation", str(Path(__file__).parent / "chk" / "b")).toTable("b")
''')
    found = [query_path(q.sink.checkpoint) for q in extract_file(str(job)).queries]
    assert found == [f"{IN_REPOSITORY}chk/a", f"{IN_REPOSITORY}chk/b"]


# -- widgets --------------------------------------------------------------------------------


def test_a_widget_is_its_default_or_its_bundles_value(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(NOTEBOOK)
    warned: list[str] = []
    alone = Widgets(JobParameters.of(job), "stub", warned.append)
    alone.text("checkpoint_root", "/mnt/chk/orders")
    assert alone.get("checkpoint_root") == "/mnt/chk/orders"
    assert alone.get("never_declared") == "stub"
    assert any("never_declared" in w for w in warned)

    (tmp_path / "databricks.yml").write_text(BUNDLE)
    bundled = Widgets(JobParameters.of(job), "stub", warned.append)
    bundled.text("checkpoint_root", "/mnt/chk/orders")
    bundled.text("topic", "orders")
    assert bundled.get("checkpoint_root") == "/Volumes/main/orders/checkpoints"
    assert bundled.get("topic") == "orders"


# -- on Spark --------------------------------------------------------------------------------


def _confirmed(capsys: pytest.CaptureFixture[str], old: Path, new: Path) -> dict:
    main(["diff", str(old), str(new), "--confirm", "--format", "json", "--spark-version", "4.3"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_widget_checkpoint_is_the_query_the_report_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _confirmed(capsys, *_checkouts(tmp_path, NOTEBOOK))
    (query,) = data["queries"]
    assert query["new"]["label"] == "/mnt/chk/orders/agg"
    assert query["confirmation"]["outcome"] == "restart-fails", query["confirmation"]
    assert query["confirmation"]["error_class"] == "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_bundle_sets_the_widget_the_run_reads(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _confirmed(capsys, *_checkouts(tmp_path, NOTEBOOK, {"databricks.yml": BUNDLE}))
    (query,) = data["queries"]
    assert query["new"]["label"] == "/Volumes/main/orders/checkpoints/agg"
    assert query["confirmation"]["outcome"] == "restart-fails", query["confirmation"]
    assert any("bundle gives it" in w for w in data["spark"]["warnings"])


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_checkpoints_beside_the_job_in_two_checkouts_are_one_query_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _confirmed(capsys, *_checkouts(tmp_path, SCRIPT))
    outcomes = [(q["new"]["label"], q["confirmation"]["outcome"]) for q in data["queries"]]
    # The counts query changed its aggregates; the raw copy did not change: Spark restarts it
    # and, with no state, writes what a fresh run writes.
    assert outcomes == [("counts", "restart-fails"),
                        ("{the path of . on the cluster}/checkpoints/raw", "same-results")]
