"""`diff --checkpoint PATH NEW --confirm` on real Spark against the real fixture checkpoints.

Each case's expectation comes from Spark itself: the same edited job is restarted on a copy
of the fixture checkpoint (`checkpoint_restart`), and Spark's refusal (its error class) or its
clean restart decides whether streamlint must report CK02 for the key or the value schema.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from checkpoint_fixtures import FIXTURES, GENERATED
from checkpoint_jobs import standalone_job, write_job
from checkpoint_restart import restart_error
from test_checkpoint_safety import tree_digest

from streamlint.checkpoint import read_checkpoint
from streamlint.cli import main

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark

SUM, AVG = 'F.sum("value")', 'F.avg("value")'
CASES = [
    # (fixture, old text, new text): Spark 3.5, 3.3 (no alwaysNullableOutput pinned: the
    # restart uses the setting's legacy value) and 4.x checkpoints, restarted on this Spark.
    (FIXTURES / "spark-3.5.9" / "agg_hdfs", "", ""),
    (FIXTURES / "spark-3.5.9" / "agg_hdfs", SUM, AVG),
    (GENERATED / "spark-3.3.4" / "agg_hdfs", "", ""),
    (GENERATED / "spark-4.1.4" / "agg_hdfs", SUM, AVG),
    (FIXTURES / "spark-4.3.0" / "agg_hdfs", 'groupBy("key")', 'groupBy("key", "id")'),
    # A renamed grouping column: names do not count in Spark's rule, the restart works.
    (FIXTURES / "spark-4.3.0" / "agg_rocksdb", 'groupBy("key")',
     'withColumnRenamed("key", "k").groupBy("k")'),
    # Unchanged, yet refused: this Spark derives a join key column as nullable in the stored
    # rows (the value schema) where Spark 3.5 stored it NOT NULL.
    (FIXTURES / "spark-3.5.9" / "join_inner", "", ""),
    (FIXTURES / "spark-4.3.0" / "join_inner", "", ""),
]


def case_id(case: tuple[Path, str, str]) -> str:
    fixture, old, new = case
    edit = "unchanged" if not old else f"{old}->{new}"
    return f"{fixture.parent.name}/{fixture.name}:{edit}"


def confirm(capsys: pytest.CaptureFixture[str], checkpoint: Path, job: Path) -> tuple[int, dict]:
    code = main(["diff", "--checkpoint", str(checkpoint), str(job), "--confirm",
                 "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def spark_codes(report: dict) -> list[str]:
    return [f["code"] for f in report["findings"] if f["code"].startswith("CK0")]


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_confirmed_schemas_agree_with_a_real_restart(
        case: tuple[Path, str, str], spark: SparkSession, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    fixture, old, new = case
    job = write_job(tmp_path, fixture, standalone_job(fixture).replace(old, new))
    before = tree_digest(fixture / "checkpoint")
    code, report = confirm(capsys, fixture / "checkpoint", job)
    assert tree_digest(fixture / "checkpoint") == before
    confirmation = report["confirmation"]
    assert (confirmation["problem"], confirmation["warnings"]) == (None, []), confirmation
    # Spark's run derived the operators the checkpoint holds (else no CK02 proves nothing).
    stored = read_checkpoint(str(fixture / "checkpoint")).operators
    assert [o["id"] for o in confirmation["operators"]] == [o.id for o in stored]

    error = restart_error(spark, fixture, old, new, tmp_path)
    found = [f["message"] for f in report["findings"] if f["code"] == "CK02"]
    if error is None:
        assert found == [], report["findings"]
        assert "CK03" not in spark_codes(report)
        return
    assert "SCHEMA_NOT_COMPATIBLE" in error, error
    which = "key" if "STATE_STORE_KEY_SCHEMA" in error else "value"
    assert found, (error, report["findings"])
    assert {m.split(" schema of", 1)[0] for m in found} == {f"the {which}"}, (error, found)
    assert (code, report["verdict"]) == (1, "incompatible")


def test_an_added_stateful_operator(spark: SparkSession, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    fixture = FIXTURES / "spark-4.3.0" / "agg_hdfs"
    old, new = "agg = df.groupBy", "agg = df.dropDuplicates([\"id\"]).groupBy"
    job = write_job(tmp_path, fixture, standalone_job(fixture).replace(old, new))
    code, report = confirm(capsys, fixture / "checkpoint", job)
    assert [len(o["stores"]) > 0 for o in report["confirmation"]["operators"]] == [True, True]
    assert "CK03" in spark_codes(report), report["findings"]
    assert code == 1
    error = restart_error(spark, fixture, old, new, tmp_path)
    assert error is not None and "STATEFUL_OPERATOR" in error, error


def test_text_report_names_what_spark_derived(spark: SparkSession, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    fixture = FIXTURES / "spark-3.5.9" / "agg_hdfs"
    job = write_job(tmp_path, fixture, standalone_job(fixture).replace(SUM, AVG))
    before = tree_digest(fixture / "checkpoint")
    code = main(["diff", "--checkpoint", str(fixture / "checkpoint"), str(job), "--confirm"])
    out = capsys.readouterr().out
    assert tree_digest(fixture / "checkpoint") == before
    assert code == 1
    assert "error[CK02] state-schema-incompatible: the value schema of state/0" in out
    assert "confirmed with Spark" in out
    # The stored sum was a bigint; avg keeps a double sum and a count.
    assert "value struct<count:bigint,sum:double,count:bigint>" in out


def test_a_job_spark_cannot_run_is_not_confirmed(spark: SparkSession, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fixture = FIXTURES / "spark-4.3.0" / "agg_hdfs"
    text = re.sub(r"spark\.readStream\.schema\(EVENT_SCHEMA\)\.json\('[^']*'\)",
                  "spark.readStream.table('sales.events')", standalone_job(fixture))
    assert "sales.events" in text
    job = write_job(tmp_path, fixture, text)
    code, report = confirm(capsys, fixture / "checkpoint", job)
    [finding] = [f for f in report["findings"] if f["code"] == "CK04"]
    assert finding["verdict"] == "review"
    assert "no schema for table sales.events" in finding["message"]
    assert report["confirmation"]["operators"] == []
    assert code == 0


def test_every_format_carries_what_spark_derived(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Text and JSON only, before; now the one result in every format (SARIF validated)."""
    import jsonschema

    fixture = FIXTURES / "spark-4.3.0" / "agg_hdfs"
    job = write_job(tmp_path, fixture)
    assert main(["diff", "--checkpoint", str(fixture / "checkpoint"), str(job), "--confirm",
                 "--format", "sarif"]) == 0
    data = json.loads(capsys.readouterr().out)
    schema = Path(__file__).resolve().parents[1] / "tests" / "data" / "sarif-schema-2.1.0.json"
    jsonschema.validate(data, json.loads(schema.read_text()))
    run = data["runs"][0]
    assert run["results"] == [] and run["properties"]["verdict"] == "compatible"
    operators = run["properties"]["confirmation"]["confirmation"]["operators"]
    assert [o["id"] for o in operators] == [0]
