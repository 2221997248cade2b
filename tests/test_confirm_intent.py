"""The oracle of `--confirm`: rows that differ between the restarted run and a fresh run of the
new code are expected where the static diff found a change whose effect on the results is by
design (`by_design` in rules/*.toml: a filter, a projection, a join's time bound, a watermark
delay). Spark's guide allows those changes ("Recovery Semantics after
Changes in a Streaming Query"); a same-type aggregate swap or a window change, which it does not
allow, stays silent corruption.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from streamlint.cli import main
from streamlint.model.identity import QueryKey
from streamlint.rulebook.book import load_rules
from streamlint.spark.confirm import Confirmation, QueryConfirmation
from streamlint.spark.report import as_result, final_verdict
from streamlint.workflow.files import diff_files

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CORPUS = Path(__file__).parent / "corpus"
# Changes Spark's guide allows whose rows differ by design, and changes it does not allow that
# restart anyway (tests/corpus/<case>/case.toml gives the guide's rule for each).
ALLOWED = ["filter_added_before_aggregation", "projection_columns_changed",
           "join_time_range_widened", "watermark_delay_increased"]
CORRUPTING = ["payment_window_widened", "inventory_sum_became_max"]


def confirmed(capsys: pytest.CaptureFixture[str], case: str) -> tuple[int, dict]:
    code = main(["diff", str(CORPUS / case / "old.py"), str(CORPUS / case / "new.py"),
                 "--confirm", "--format", "json", "--spark-version", "4.3"])
    return code, json.loads(capsys.readouterr().out)


def outcomes(report: dict) -> list[str]:
    return [q["confirmation"]["outcome"] for q in report["queries"]]


@pytest.mark.spark
@pytest.mark.parametrize("case", ALLOWED)
def test_an_allowed_change_never_reads_incompatible(
        case: str, spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = confirmed(capsys, case)
    assert report["verdict"] != "incompatible" and code == 0, report["queries"]
    assert report["spark"]["disagreements"] == []
    [outcome] = outcomes(report)
    # Spark restarted it; its rows equal a fresh run's, or differ as the change intends.
    assert outcome in ("same-results", "differs-as-intended", "no-output"), report["queries"]
    if outcome == "differs-as-intended":
        [query] = report["queries"]
        codes = {f["code"] for f in report["findings"]}
        explained = query["confirmation"]["message"]
        assert any(c in explained for c in codes), explained


@pytest.mark.spark
@pytest.mark.parametrize("case", CORRUPTING)
def test_results_no_change_explains_are_silent_corruption(
        case: str, spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = confirmed(capsys, case)
    assert outcomes(report) == ["results-differ"], report["queries"]
    assert (code, report["verdict"]) == (1, "incompatible")


def test_the_oracle_on_records() -> None:
    """Without Spark: the same `results-differ` is intended after a filter, corruption after
    a window change, and corruption where a by-design change comes with one to question."""
    def judged(case: str) -> tuple[str, str]:
        static = diff_files(str(CORPUS / case / "old.py"), str(CORPUS / case / "new.py"), "4.3")
        query = static.pairs[0][1]
        key = QueryKey("checkpoint", query.sink.checkpoint)
        differ = Confirmation("4.3.0", (QueryConfirmation(key, query.label, "results-differ"),))
        result = as_result(static, differ, ["streamlint"])
        return result.queries[0]["outcome"], final_verdict(static, differ)

    assert judged("filter_added_before_aggregation") == ("differs-as-intended", "compatible")
    assert judged("payment_window_widened") == ("results-differ", "incompatible")
    by_design = {r.code for r in load_rules() if r.by_design}
    assert {"PR01", "PR03", "JN03", "WM01"} <= by_design
    # A foreachBatch body never runs in the sandbox (its batches are collected before it):
    # it cannot make the compared rows differ, so it explains no difference.
    assert not {"AG03", "AG04", "AG05", "SK07", "SK12"} & by_design
