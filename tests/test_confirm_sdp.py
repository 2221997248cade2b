"""`--confirm` on a Spark Declarative Pipelines file: Spark runs such a file only inside its
pipeline graph (`spark-pipelines run`), never as a script, so the confirmation says so in one
line and the static verdict stands (before: GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE
and a misleading 'not run' line per table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from streamlint.cli import main

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark

SDP = Path(__file__).parent / "pipelines" / "synthetic" / "sdp_orders.py"


def pair(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old" / "pipeline.py", tmp_path / "new" / "pipeline.py"
    for path in (old, new):
        path.parent.mkdir()
    old.write_text(SDP.read_text())
    new.write_text(SDP.read_text().replace('where("amount > 0")', 'where("amount >= 0")'))
    return old, new


def test_spark_runs_no_pipeline_file_as_a_script(spark: SparkSession) -> None:
    """The ground truth of the refusal: the file's own decorators refuse outside a pipeline."""
    with pytest.raises(Exception, match="GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE"):
        exec(compile(SDP.read_text(), str(SDP), "exec"), {"spark": spark})  # noqa: S102


def test_a_pipeline_file_is_refused_in_one_line(spark: SparkSession, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    old, new = pair(tmp_path)
    static = main(["diff", str(old), str(new), "--format", "json"])
    static_report = json.loads(capsys.readouterr().out)
    code = main(["diff", str(old), str(new), "--confirm"])
    out = capsys.readouterr().out
    section = out.split("confirmation (a local run", 1)[1]
    assert "not run" not in section and "GRAPH_ELEMENT" not in section, section
    [line] = [s for s in section.splitlines() if "cannot confirm" in s]
    assert "spark-pipelines run" in line and "static verdict stands" in line
    assert code == static
    assert out.rstrip().endswith(f"verdict (stricter of static and Spark): "
                                 f"{static_report['verdict']}")
