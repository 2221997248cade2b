"""Findings at the change (issue 31): a code host annotates only lines a pull request touched,
so a finding moves to the changed line that causes it and keeps where the query uses it as a
related location. Expected lines are found in the jobs' text by a marker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
CODES = {rule.name: rule.code for rule in load_rules()}

AGG = '''from pyspark.sql import functions as F
events = spark.readStream.format("kafka").option("subscribe", "pay").load()
totals = (events
          .groupBy("merchant")
          .agg(F.{fn}("amount").alias("total")))
totals.writeStream.format("delta").outputMode("update") \\
    .option("checkpointLocation", "/chk/totals").start("/out/totals")
'''

CONSTANT = '''CHECKPOINT = "{chk}"

events = spark.readStream.format("kafka").option("subscribe", "pay").load()
events.writeStream.format("delta") \\
    .option("checkpointLocation", CHECKPOINT).start("/out/pay")
'''


def line_of(text: str, marker: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if marker in line)


def diff(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str,
         fmt: str = "json") -> dict:
    (tmp_path / "old.py").write_text(old)
    (tmp_path / "new.py").write_text(new)
    main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py"), "--format", fmt])
    return json.loads(capsys.readouterr().out)


def test_a_swapped_aggregate_points_at_the_agg_line(tmp_path: Path, capsys) -> None:
    old, new = AGG.format(fn="sum"), AGG.format(fn="max")
    data = diff(tmp_path, capsys, old, new)
    [swap] = [f for f in data["findings"] if f["code"] == CODES["aggregate-function-swapped"]]
    assert swap["new"]["line"] == line_of(new, "F.max") and swap["old"]["line"] == line_of(
        old, "F.sum")
    assert [r["line"] for r in swap["related"]] == [line_of(new, "groupBy")]


def test_a_changed_constant_is_where_the_checkpoint_finding_points(tmp_path: Path,
                                                                    capsys) -> None:
    old, new = CONSTANT.format(chk="/chk/pay"), CONSTANT.format(chk="/chk/pay_v2")
    data = diff(tmp_path, capsys, old, new)
    [moved] = [f for f in data["findings"] if f["code"] == CODES["checkpoint-location-changed"]]
    assert moved["new"]["line"] == line_of(new, "CHECKPOINT =") == moved["old"]["line"]
    assert [r["line"] for r in moved["related"]] == [line_of(new, '"checkpointLocation"')]


def test_a_finding_on_a_changed_line_stays_there(tmp_path: Path, capsys) -> None:
    old = CONSTANT.format(chk="/chk/pay")
    new = old.replace('"checkpointLocation", CHECKPOINT', '"checkpointLocation", "/chk/x"')
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["checkpoint-location-changed"]]
    assert finding["new"]["line"] == line_of(new, '"/chk/x"') and finding["related"] == []


def test_the_text_report_says_where_the_query_uses_the_change(tmp_path: Path, capsys) -> None:
    (tmp_path / "old.py").write_text(AGG.format(fn="sum"))
    (tmp_path / "new.py").write_text(AGG.format(fn="max"))
    main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py")])
    out = capsys.readouterr().out
    assert f"  used at: {tmp_path / 'new.py'}:{line_of(AGG, 'groupBy')}:" in out


def test_sarif_related_locations_follow_the_schema(tmp_path: Path, capsys) -> None:
    import jsonschema

    data = diff(tmp_path, capsys, AGG.format(fn="sum"), AGG.format(fn="max"), "sarif")
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(data, schema)
    [swap] = [r for r in data["runs"][0]["results"]
              if r["ruleId"] == CODES["aggregate-function-swapped"]]
    [related] = swap["relatedLocations"]
    assert related["physicalLocation"]["region"]["startLine"] == line_of(AGG, "groupBy")


def test_a_suppression_where_the_query_uses_the_change_still_counts(tmp_path: Path,
                                                                    capsys) -> None:
    code = CODES["checkpoint-location-changed"]
    old = CONSTANT.format(chk="/chk/pay")
    new = CONSTANT.format(chk="/chk/pay_v2").replace(
        ".start(\"/out/pay\")", f".start(\"/out/pay\")  # streamlint: ignore[{code}] OPS-3")
    data = diff(tmp_path, capsys, old, new)
    assert code not in {f["code"] for f in data["findings"]}


TWO = '''events = spark.readStream.format("kafka").option("subscribe", "pay").load()
events.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/pay").start("/out/pay")
{clicks}'''

CLICKS = '''
clicks = spark.readStream.format("kafka").option("subscribe", "clicks").load()
clicks.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/clicks").start("/out/clicks")
'''


def render(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str,
           fmt: str) -> str:
    (tmp_path / "old.py").write_text(old)
    (tmp_path / "new.py").write_text(new)
    main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py"), "--format", fmt,
          "--exit-zero"])
    return capsys.readouterr().out


def test_a_removed_query_points_where_its_code_was_taken_out(tmp_path: Path, capsys) -> None:
    old = TWO.format(clicks=CLICKS)
    new = TWO.format(clicks="\n# clicks moved to the clicks job\n")
    code = CODES["query-removed"]
    data = json.loads(render(tmp_path, capsys, old, new, "json"))
    [gone] = [f for f in data["findings"] if f["code"] == code]
    assert gone["new"]["line"] == line_of(new, "# clicks moved")
    assert line_of(old, "clicks = ") <= gone["old"]["line"] <= line_of(old, "/chk/clicks")
    github = render(tmp_path, capsys, old, new, "github")
    [annotation] = [n for n in github.splitlines() if f"title={code} " in n]
    assert f",line={line_of(new, '# clicks moved')}," in annotation
    assert "not in the new version" not in annotation


def test_a_query_deleted_with_nothing_in_its_place_says_where_it_was(tmp_path: Path,
                                                                     capsys) -> None:
    old, new = TWO.format(clicks=CLICKS), TWO.format(clicks="")
    code = CODES["query-removed"]
    data = json.loads(render(tmp_path, capsys, old, new, "json"))
    [gone] = [f for f in data["findings"] if f["code"] == code]
    assert gone["new"] is None
    was = f"old.py:{gone['old']['line']}` in the old one"
    github = render(tmp_path, capsys, old, new, "github")
    [annotation] = [n for n in github.splitlines() if f"title={code} " in n]
    assert ",line=1," in annotation and "(not in the new version: it was at `" in annotation
    assert was in annotation
    markdown = render(tmp_path, capsys, old, new, "markdown")
    [row] = [n for n in markdown.splitlines() if f"{code}]" in n and n.startswith("|")]
    assert "| Not in the new version: it was at `" in row and f"{was} |" in row


PIPELINE = '''import dlt


@dlt.table(
    name="bronze_orders",
    {layout}
)
def bronze_orders():
    return spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv") \\
        .load("/landing/orders")
'''


def test_a_changed_decorator_argument_is_where_the_table_finding_points(tmp_path: Path,
                                                                        capsys) -> None:
    old = PIPELINE.format(layout='cluster_by=["order_date"],')
    new = PIPELINE.format(layout='partition_cols=["order_date"],')
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CODES["sink-partitioning-changed"]]
    assert finding["new"]["line"] == line_of(new, "partition_cols=")
    assert [r["line"] for r in finding["related"]] == [line_of(new, "def bronze_orders")]
