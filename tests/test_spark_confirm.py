"""The stateful verdicts, confirmed once by really running Spark.

For every case in `tests/spark_cases/` (see `cases` for the format, `spark_harness` for the run):

* the static diff of `old.py` against `new.py` gives the case's verdict and rule codes;
* on real Spark, the old job runs to a checkpoint, the new one restarts from it, and what
  happens (the restart fails, or it runs and writes the same or different rows than the new job
  run from scratch) is the case's outcome (`spark` in its case.toml).

Runs in one local Spark session for the whole test session (Java 17 and the `spark` extra:
`pip install -e '.[spark,test]'`). Select with `pytest -m spark`, leave out with
`-m 'not spark'`. pyspark missing is an error, not a skip: CI must not pass without Spark.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cases import ROOTS, Case, load_cases
from spark_harness import RECORDED_ON, error_class, observe

from streamlint.diff import diff_jobs
from streamlint.extract import extract_file

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark

CASES = load_cases(ROOTS["spark"], "spark")
BY_CASE = [pytest.param(case, id=case.name) for case in CASES]


def test_cases_cover_every_outcome() -> None:
    assert {case.outcome for case in CASES} == {"restart-fails", "results-differ", "same-results"}


@pytest.mark.parametrize("case", BY_CASE)
def test_static_verdict(case: Case) -> None:
    old, new = extract_file(str(case.old)), extract_file(str(case.new))
    assert len(old.queries) == 1 and len(new.queries) == 1, "each job has one streaming query"
    report = diff_jobs(old, new, RECORDED_ON)
    codes = {finding.code for finding in report.findings}
    assert set(case.codes) <= codes, f"missing {set(case.codes) - codes}: {report.findings}"
    assert report.verdict == case.verdict, report.findings


@pytest.mark.parametrize("case", BY_CASE)
def test_spark_outcome(
    case: Case, spark: SparkSession, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    observation = observe(spark, case, tmp_path)
    record_property("spark", observation.describe())
    print(f"{case.name}: {observation.describe()}")
    assert observation.outcome == case.outcome, observation.describe()
    if case.error is not None:
        assert observation.error is not None
        assert case.error in observation.error, (
            f"expected {case.error!r}, Spark said [{error_class(observation.error)}] "
            f"{observation.error}")
