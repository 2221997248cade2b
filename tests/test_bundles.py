"""Databricks Asset Bundles (issue 27, item 4): the job and pipeline definitions of
`databricks.yml` give the notebook, Python file or pipeline they run its parameters and its
runtime.

Each repository here is a small bundle written the way the bundle templates write them
(`databricks bundle init default-python`): `databricks.yml` with targets and variables, the
jobs and pipelines in `resources/*.yml`, the code in `src/`, paths relative to the YAML
file that writes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.diff import Report, diff_jobs
from streamlint.extract import extract_text
from streamlint.extract.bundles import deployment, spark_of_runtime, spark_version
from streamlint.extract.project import MappingFiles, Project

NOTEBOOK = "src/ingest_orders.py"

BUNDLE = '''\
bundle:
  name: orders

include:
  - resources/*.yml

variables:
  catalog:
    description: The catalog the tables are written to.
    default: main

targets:
  dev:
    mode: development
    default: true
  prod:
    mode: production
'''

JOB_YML = '''\
resources:
  jobs:
    ingest_orders:
      name: ingest_orders
      job_clusters:
        - job_cluster_key: job_cluster
          new_cluster:
            spark_version: 15.4.x-scala2.12
            node_type_id: i3.xlarge
            num_workers: 2
      tasks:
        - task_key: ingest
          job_cluster_key: job_cluster
          notebook_task:
            notebook_path: ../src/ingest_orders.py
            base_parameters:
              checkpoint: /Volumes/main/orders/checkpoints/ingest
              table: ${var.catalog}.bronze.orders
'''

WIDGET_NOTEBOOK = '''\
# Databricks notebook source
dbutils.widgets.text("checkpoint", "/Volumes/dev/orders/checkpoints/ingest")
dbutils.widgets.text("table", "dev.bronze.orders")

# COMMAND ----------

checkpoint = dbutils.widgets.get("checkpoint")
table = dbutils.widgets.get("table")

orders = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", "broker:9092")
          .option("subscribe", "orders")
          .load())
(orders.selectExpr("CAST(value AS STRING) AS body")
 .writeStream
 .option("checkpointLocation", checkpoint)
 .toTable(table))
'''


def repository(job_yml: str = JOB_YML, notebook: str = WIDGET_NOTEBOOK,
               bundle: str = BUNDLE) -> dict[str, str]:
    return {"databricks.yml": bundle, "resources/ingest_orders.job.yml": job_yml,
            NOTEBOOK: notebook}


def diff(old: dict[str, str], new: dict[str, str], job: str = NOTEBOOK,
         version: str = "3.5") -> Report:
    before = extract_text(old[job], job, Project(MappingFiles(old), job))
    after = extract_text(new[job], job, Project(MappingFiles(new), job))
    return diff_jobs(before, after, version)


def codes(report: Report) -> list[str]:
    return sorted(f.code for f in report.findings)


def messages(report: Report) -> str:
    return "\n".join(f.message for f in report.findings)


def checkpoint(files: dict[str, str], job: str = NOTEBOOK) -> object:
    (query,) = extract_text(files[job], job, Project(MappingFiles(files), job)).queries
    return query.sink.checkpoint


# -- a parameter set by the bundle wins --------------------------------------------------------


def test_the_bundles_base_parameter_wins_over_the_widgets_default() -> None:
    # Before: the checkpoint was the widget's default, /Volumes/dev/...
    assert str(checkpoint(repository())) == "/Volumes/main/orders/checkpoints/ingest"


def test_without_a_bundle_the_widgets_default_stands() -> None:
    files = {NOTEBOOK: WIDGET_NOTEBOOK}
    assert str(checkpoint(files)) == "/Volumes/dev/orders/checkpoints/ingest"


def test_a_changed_base_parameter_is_judged_like_the_same_change_in_the_code() -> None:
    old = repository()
    new = repository(JOB_YML.replace("checkpoints/ingest", "checkpoints/ingest_v2"))
    report = diff(old, new)
    assert report.verdict == "incompatible", messages(report)
    assert codes(report) == ["QY01"]
    # The same change written in the code, with no bundle: the same finding.
    in_code = WIDGET_NOTEBOOK.replace('dbutils.widgets.get("checkpoint")',
                                      '"/Volumes/main/orders/checkpoints/ingest"')
    moved = diff({NOTEBOOK: in_code}, {NOTEBOOK: in_code.replace("ingest\"", "ingest_v2\"")})
    assert codes(moved) == codes(report)


def test_a_value_moved_from_the_widgets_default_into_the_bundle_is_no_change() -> None:
    # The old bundle ran the notebook with its default; the new one says the same value.
    old_yml = JOB_YML.replace(
        "              checkpoint: /Volumes/main/orders/checkpoints/ingest\n", "")
    old = repository(old_yml, WIDGET_NOTEBOOK.replace("/Volumes/dev/orders/checkpoints/ingest",
                                                      "/Volumes/main/orders/checkpoints/ingest"))
    new = repository(JOB_YML, old[NOTEBOOK])
    report = diff(old, new)
    assert (report.verdict, report.findings) == ("compatible", ())


def test_a_widgets_default_the_bundle_does_not_set_is_still_a_default() -> None:
    yml = JOB_YML.replace("              checkpoint: /Volumes/main/orders/checkpoints/ingest\n",
                          "")
    old = repository(yml)
    new = repository(yml, WIDGET_NOTEBOOK.replace("checkpoints/ingest\"",
                                                  "checkpoints/ingest_v2\""))
    report = diff(old, new)
    assert report.verdict == "review", messages(report)  # UN04: never incompatible on a default
    assert "widget 'checkpoint'" in messages(report)


def test_a_widgets_default_changed_under_the_bundles_value_is_never_incompatible() -> None:
    # The bundle sets the checkpoint on both sides: the notebook's own default changed only
    # (a run without the bundle's value would take it), so it is asked about, never judged.
    new = repository(notebook=WIDGET_NOTEBOOK.replace("checkpoints/ingest\"",
                                                      "checkpoints/ingest_v2\""))
    report = diff(repository(), new)
    assert codes(report) == ["UN04"], messages(report)


def test_a_variable_the_bundle_resolves_is_its_value() -> None:
    files = repository()
    (query,) = extract_text(files[NOTEBOOK], NOTEBOOK,
                            Project(MappingFiles(files), NOTEBOOK)).queries
    assert query.sink.target == "main.bronze.orders"  # ${var.catalog}.bronze.orders
    report = diff(files, repository(bundle=BUNDLE.replace("default: main", "default: prod")))
    assert [(f.code, f.old_value, f.new_value) for f in report.findings] == [
        ("SK08", "'main.bronze.orders'", "'prod.bronze.orders'")]


def test_a_job_parameter_reaches_the_notebooks_widget() -> None:
    yml = JOB_YML.replace("      job_clusters:", """\
      parameters:
        - name: checkpoint
          default: /Volumes/main/orders/checkpoints/from_job
      job_clusters:""")
    # A job parameter wins over the task's parameter of the same name.
    assert str(checkpoint(repository(yml))) == "/Volumes/main/orders/checkpoints/from_job"


def test_a_dynamic_reference_to_a_job_parameter_takes_its_default() -> None:
    yml = JOB_YML.replace("      job_clusters:", """\
      parameters:
        - name: root
          default: /Volumes/main/orders/checkpoints
      job_clusters:""").replace("checkpoint: /Volumes/main/orders/checkpoints/ingest",
                                'checkpoint: "{{job.parameters.root}}/ingest"')
    assert str(checkpoint(repository(yml))) == "/Volumes/main/orders/checkpoints/ingest"


# -- values known only at run time ------------------------------------------------------------


PER_TARGET = BUNDLE.replace("    mode: production\n", """\
    mode: production
    variables:
      catalog: prod
""")


def test_a_value_that_differs_between_targets_is_known_only_at_run_time() -> None:
    yml = JOB_YML.replace("/Volumes/main/orders/checkpoints/ingest",
                          "/Volumes/${var.catalog}/orders/checkpoints/ingest")
    files = repository(yml, bundle=PER_TARGET)
    value = checkpoint(files)
    assert "target dev" in str(value) and "target prod" in str(value), value
    assert "/Volumes/main/" in str(value) and "/Volumes/prod/" in str(value)
    same = diff(files, {**files, NOTEBOOK: files[NOTEBOOK] + "\n# edited\n"})
    assert "QY01" not in codes(same)
    changed = diff(files, repository(yml, bundle=PER_TARGET.replace("catalog: prod",
                                                                    "catalog: prod2")))
    assert changed.verdict == "review", messages(changed)


def test_a_substitution_only_a_deployment_knows_is_a_run_time_value() -> None:
    yml = JOB_YML.replace("checkpoint: /Volumes/main/orders/checkpoints/ingest",
                          "checkpoint: /Users/${workspace.current_user.userName}/chk")
    assert "known at run time" in str(checkpoint(repository(yml)))


def test_a_target_removed_leaves_a_run_time_value_as_it_was() -> None:
    # Known at run time under every target, before and after: the same value (a history pair:
    # an integration target dropped from databricks.yml).
    yml = JOB_YML.replace("checkpoint: /Volumes/main/orders/checkpoints/ingest",
                          "checkpoint: /Users/${workspace.current_user.userName}/chk")
    old = repository(yml)
    new = repository(yml, bundle=BUNDLE.replace("  prod:\n    mode: production\n", ""))
    assert codes(diff(old, new)) == []


# -- Python file tasks and pipelines ----------------------------------------------------------

PYTHON_JOB = '''\
import argparse

from pyspark.sql import SparkSession

parser = argparse.ArgumentParser()
parser.add_argument("--topic", default="orders")
parser.add_argument("--checkpoint", default="/chk/orders")
args = parser.parse_args()

spark = SparkSession.builder.getOrCreate()
df = spark.readStream.format("kafka").option("subscribe", args.topic).load()
df.writeStream.option("checkpointLocation", args.checkpoint).toTable("bronze.orders")
'''

PYTHON_YML = '''\
resources:
  jobs:
    orders:
      name: orders
      tasks:
        - task_key: main
          spark_python_task:
            python_file: ../src/orders_job.py
            parameters: ["--checkpoint", "/chk/orders_prod", "--topic=orders"]
          new_cluster:
            spark_version: 17.3.x-scala2.13
            num_workers: 1
'''


def test_a_python_tasks_parameters_are_its_command_line() -> None:
    files = {"databricks.yml": BUNDLE, "resources/orders.job.yml": PYTHON_YML,
             "src/orders_job.py": PYTHON_JOB}
    assert str(checkpoint(files, "src/orders_job.py")) == "/chk/orders_prod"
    new = {**files, "resources/orders.job.yml": PYTHON_YML.replace("--topic=orders",
                                                                   "--topic=orders_v2")}
    report = diff(files, new, "src/orders_job.py")
    assert report.verdict == "incompatible", messages(report)
    assert "SO04" in codes(report)


PIPELINE = '''\
import dlt
from pyspark.sql import functions as F

SOURCE = spark.conf.get("orders.source_table", "main.bronze.orders")


@dlt.table(name="orders_silver", comment="Orders with a positive amount.")
def orders_silver():
    return spark.readStream.table(SOURCE).where(F.col("amount") > 0)
'''

PIPELINE_YML = '''\
resources:
  pipelines:
    orders_pipeline:
      name: orders_pipeline
      catalog: ${var.catalog}
      schema: silver
      serverless: true
      libraries:
        - notebook:
            path: ../src/orders_pipeline.py
      configuration:
        orders.source_table: ${var.catalog}.bronze.orders_raw
'''


def test_a_pipelines_configuration_is_what_spark_conf_get_reads() -> None:
    job = "src/orders_pipeline.py"
    files = {"databricks.yml": BUNDLE, "resources/orders.pipeline.yml": PIPELINE_YML,
             job: PIPELINE}
    (query,) = extract_text(PIPELINE, job, Project(MappingFiles(files), job)).queries
    assert "main.bronze.orders_raw" in str(query.sources[0].identity)
    new = {**files, "resources/orders.pipeline.yml": PIPELINE_YML.replace(
        "bronze.orders_raw", "bronze.orders_v2")}
    report = diff(files, new, job)
    # The same change in the code: a literal table renamed.
    old_code = PIPELINE.replace('spark.conf.get("orders.source_table", "main.bronze.orders")',
                                '"main.bronze.orders_raw"')
    in_code = diff({job: old_code}, {job: old_code.replace("orders_raw", "orders_v2")}, job)
    assert report.verdict == in_code.verdict != "compatible"
    assert codes(report) == codes(in_code)


def test_a_pipeline_library_glob_runs_the_file() -> None:
    job = "src/transformations/orders.py"
    yml = PIPELINE_YML.replace("        - notebook:\n            path: ../src/orders_pipeline.py",
                               "        - glob:\n            include: ../src/transformations/**")
    files = {"databricks.yml": BUNDLE, "resources/orders.pipeline.yml": yml, job: PIPELINE}
    found = deployment(MappingFiles(files), job)
    assert found is not None and [r.where for r in found.runs] == [
        "pipeline 'orders_pipeline' (target dev)", "pipeline 'orders_pipeline' (target prod)"]
    assert spark_version(found) is None  # a pipeline's runtime is its channel's


# -- the Spark version ------------------------------------------------------------------------


@pytest.mark.parametrize(("runtime", "spark"), [
    # Databricks runtime release notes: the Apache Spark each ships.
    ("13.3.x-scala2.12", "3.4"), ("14.3.x-scala2.12", "3.5"), ("15.4.x-scala2.12", "3.5"),
    ("15.4.x-photon-scala2.12", "3.5"), ("16.4.x-cpu-ml-scala2.12", "3.5"),
    ("17.3.x-scala2.13", "4.0"), ("18.0.x-scala2.13", "4.1"), ("custom", None)])
def test_a_runtime_names_its_spark(runtime: str, spark: str | None) -> None:
    assert spark_of_runtime(runtime) == spark


def test_the_clusters_runtime_is_the_rules_spark_version(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    for side in ("old", "new"):
        for path, text in repository(JOB_YML.replace("15.4.x-scala2.12", "17.3.x-scala2.13")
                                     ).items():
            (tmp_path / side / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / side / path).write_text(text)
    args = ["diff", str(tmp_path / "old" / NOTEBOOK), str(tmp_path / "new" / NOTEBOOK)]
    assert main(args) == 0
    # The clusters' runtime is named as such, and a rule bound to it would hold.
    out = capsys.readouterr().out
    assert "(Databricks Runtime 17.3, Spark 4.0)" in out
    assert "judged for Databricks Runtime 17.3 (Spark 4.0) (databricks.yml: " in out, out
    assert "spark_version 17.3.x-scala2.13)" in out, out
    assert main([*args, "--spark-version", "3.5"]) == 0
    assert "(Spark 3.5)" in capsys.readouterr().out  # what the user says wins


# -- check ------------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    for path, text in repository().items():
        repo.put(path, text)
    repo.put("src/unrelated_job.py", PYTHON_JOB)
    repo.commit("the orders bundle")
    monkeypatch.chdir(tmp_path)
    return repo


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def test_check_judges_the_notebook_a_changed_resource_file_runs(repo: Repo, capsys) -> None:
    repo.edit("resources/ingest_orders.job.yml", "checkpoints/ingest", "checkpoints/ingest_v2")
    repo.commit("a new checkpoint")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1
    assert [(f["path"], f["status"], f["verdict"]) for f in data["files"]] == [
        (NOTEBOOK, "config-changed", "incompatible")]
    assert [f["code"] for f in data["files"][0]["findings"]] == ["QY01"]


def test_check_judges_the_notebook_when_only_databricks_yml_changes(repo: Repo,
                                                                      capsys) -> None:
    repo.edit("databricks.yml", "default: main", "default: analytics")
    repo.commit("another catalog")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert [(f["path"], f["status"]) for f in data["files"]] == [
        (NOTEBOOK, "config-changed")], data
    # The table it writes moved (main.bronze.orders -> analytics.bronze.orders): as the same
    # change in the code, a review.
    assert (status, data["verdict"]) == (0, "review"), data
    assert "analytics.bronze.orders" in json.dumps(data["files"][0]["findings"])


def test_check_lists_nothing_for_a_bundle_change_that_changes_no_value(repo: Repo,
                                                                         capsys) -> None:
    repo.edit("databricks.yml", "  name: orders\n", "  name: orders\n  # owned by data-eng\n")
    repo.commit("a comment")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 0
    assert [(f["path"], f["verdict"]) for f in data["files"]] in (
        [], [(NOTEBOOK, "compatible")])


def test_two_tasks_that_run_the_notebook_with_different_values_make_it_a_run_time_value() -> None:
    yml = JOB_YML + '''\
        - task_key: backfill
          job_cluster_key: job_cluster
          notebook_task:
            notebook_path: ../src/ingest_orders
            base_parameters:
              checkpoint: /Volumes/main/orders/checkpoints/backfill
'''
    value = str(checkpoint(repository(yml)))
    assert "task 'ingest'" in value and "task 'backfill'" in value, value


@pytest.mark.parametrize("broken", [": not yaml [", "- a list\n- not a mapping\n",
                                    "!!python/object/apply:os.system ['true']\n"])
def test_a_bundle_that_cannot_be_read_leaves_the_widgets_default(broken: str) -> None:
    files = repository(bundle=broken, job_yml=broken)
    assert str(checkpoint(files)) == "/Volumes/dev/orders/checkpoints/ingest"


# -- what the deployment sets: --var and BUNDLE_VAR_<name> -------------------------------------


def test_a_bundle_var_in_the_environment_wins_over_the_default(
        monkeypatch: pytest.MonkeyPatch) -> None:
    files = repository()
    monkeypatch.setenv("BUNDLE_VAR_catalog", "prod")
    (query,) = extract_text(files[NOTEBOOK], NOTEBOOK,
                            Project(MappingFiles(files), NOTEBOOK)).queries
    assert query.sink.target == "prod.bronze.orders"


def test_an_undeclared_bundle_var_in_the_environment_changes_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUNDLE_VAR_schema", "gold")
    files = repository(JOB_YML.replace("${var.catalog}.bronze", "${var.catalog}.${var.schema}"))
    (query,) = extract_text(files[NOTEBOOK], NOTEBOOK,
                            Project(MappingFiles(files), NOTEBOOK)).queries
    assert query.sink.target != "main.gold.orders"


def write_repository(root: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "pyproject.toml").write_text("")
    return str(root / NOTEBOOK)


def test_var_pins_what_a_changed_default_would_change(tmp_path: Path, monkeypatch,
                                                      capsys) -> None:
    monkeypatch.delenv("BUNDLE_VAR_catalog", raising=False)
    old = write_repository(tmp_path / "old", repository())
    new = write_repository(tmp_path / "new", repository(
        bundle=BUNDLE.replace("default: main", "default: staging")))
    main(["diff", old, new, "--format", "json"])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["SK08"]
    # The deployment sets the catalog itself: the default's change reaches no run.
    assert main(["diff", old, new, "--format", "json", "--var", "catalog=prod"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_a_malformed_var_is_a_usage_error(tmp_path: Path, capsys) -> None:
    old = write_repository(tmp_path / "old", repository())
    assert main(["diff", old, old, "--var", "catalog"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err


def test_var_leaves_the_callers_environment_as_it_was(tmp_path: Path, capsys) -> None:
    import os

    old = write_repository(tmp_path / "old", repository())
    main(["diff", old, old, "--var", "catalog=prod"])
    assert "BUNDLE_VAR_catalog" not in os.environ
