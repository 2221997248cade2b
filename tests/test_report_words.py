"""Every report of every corpus is in the user's words: no internal representation.

Values known only at run time are shown as the code writes them (`checkpoint_path`,
`{bookstore.checkpoint_path}/orders_silver`), never as a record's repr (`Unknown(text=...)`,
`BoundMethod(...)`), a marker (`<unresolved: ...>`), a digest (`#1a2b3c4d`) or
"unknown to unknown". Each pair of each corpus is diffed and rendered in every format:
tests/corpus, tests/notebooks and tests/pipelines (their edits), and, when they are on this
machine, tests/realworld (its edits; `python bench/realworld_fetch.py` materialises it) and
tests/history/trees (`python bench/history_fetch.py`).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_notebooks
import test_pipelines

from streamlint.cli.diff import diff_report, render_report
from streamlint.cli.options import FORMATS
from streamlint.extract import extract_text
from streamlint.model.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import history_corpus  # noqa: E402
import realworld_corpus  # noqa: E402

INTERNAL = re.compile(
    r"Unknown\(|BoundMethod\(|<unresolved|\bdigest\b|#[0-9a-f]{6,}\b|unknown to unknown"
    r"|\b[A-Z][A-Za-z]+\([a-z_]+=")  # a record's repr: `Duplicates(subset=...)`

Pair = tuple[str, Path, Path]


def internal_lines(pairs: Iterator[Pair]) -> tuple[int, list[str]]:
    """How many pairs were reported, and each report line holding an internal form."""
    found, seen = [], 0
    for name, old, new in pairs:
        try:
            report = diff_report(str(old), str(new), None)
        except InputError:  # a commit that does not parse: an error, no report
            continue
        seen += 1
        for fmt in FORMATS:
            for line in _rendered(fmt, report, new).splitlines():
                # Paths are the user's (a history tree is named by its commit hash).
                shown = line.replace(str(old), "OLD").replace(str(new), "NEW")
                if INTERNAL.search(shown):
                    found.append(f"{name} [{fmt}]: {shown.strip()[:300]}")
    return seen, found


def _rendered(fmt: str, report: object, new: Path) -> str:
    """A report as the user gets it, less SARIF's copy of the rulebook (its prose may name
    a digest, as SO17's does: what streamlint keeps of a credential)."""
    out = render_report(fmt, report, str(new))  # type: ignore[arg-type]
    if fmt != "sarif":
        return out
    data = json.loads(out)
    for run in data["runs"]:
        run["tool"]["driver"].pop("rules", None)
    return json.dumps(data, indent=1)


def corpus_pairs() -> Iterator[Pair]:
    for old in sorted((ROOT / "tests" / "corpus").glob("*/old.py")):
        yield f"corpus/{old.parent.name}", old, old.parent / "new.py"


def edited_pairs(tmp: Path) -> Iterator[Pair]:
    """The notebooks' and the pipelines' edits of their tests, and each file against itself
    (copied, so that `%run` targets and imports resolve as in their folders)."""
    notebooks = tmp / "notebooks"
    shutil.copytree(test_notebooks.NOTEBOOKS, notebooks)
    medallion = notebooks / test_notebooks.MEDALLION.relative_to(test_notebooks.NOTEBOOKS)
    grouped = medallion.with_name("grouped.ipynb")
    grouped.write_text(medallion.read_text().replace(test_notebooks.GROUP,
                                                     test_notebooks.GROUP_SITE))
    yield "notebooks/grouping-key-added", medallion, grouped
    for path in sorted(notebooks.rglob("*")):
        if path.suffix in (".ipynb", ".py") and path != grouped:
            yield f"notebooks/{path.name}", path, path
    pipelines = tmp / "pipelines"
    shutil.copytree(test_pipelines.SYNTHETIC, pipelines)
    for path in sorted(pipelines.glob("*.py")):
        yield f"pipelines/{path.name}", path, path
    for name, before, after, _, _ in test_pipelines.SDP_EDITS:
        edited = pipelines / f"edit_{name}.py"
        edited.write_text(test_pipelines.edit(test_pipelines.SDP, before, after))
        yield f"pipelines/{name}", pipelines / "sdp_orders.py", edited


def realworld_pairs(tmp: Path) -> Iterator[Pair]:
    for edit in realworld_corpus.load_edits():
        if not (realworld_corpus.REALWORLD / edit["file"]).is_file():
            continue
        old, new = realworld_corpus.apply_edit(edit, tmp / edit["id"])
        yield f"realworld/{edit['id']}", old, new


def history_pairs() -> Iterator[Pair]:
    for pair in history_corpus.load_pairs():
        old, new = history_corpus.job(pair, "old"), history_corpus.job(pair, "new")
        if old.is_file() and new.is_file():
            yield f"history/{pair['id']}", old, new


def test_corpus_reports_have_no_internal_forms() -> None:
    seen, found = internal_lines(corpus_pairs())
    assert seen >= 250
    assert found == []


@pytest.mark.slow
def test_notebook_and_pipeline_reports_have_no_internal_forms(tmp_path: Path) -> None:
    seen, found = internal_lines(edited_pairs(tmp_path))
    assert seen >= 20
    assert found == []


@pytest.mark.slow
def test_realworld_reports_have_no_internal_forms(tmp_path: Path) -> None:
    if realworld_corpus.missing(realworld_corpus.load_manifest()) == [
            e["path"] for e in realworld_corpus.load_manifest()]:
        pytest.skip("tests/realworld is not materialised (python bench/realworld_fetch.py)")
    seen, found = internal_lines(realworld_pairs(tmp_path))
    assert seen >= 100
    assert found == []


@pytest.mark.slow
def test_history_reports_have_no_internal_forms() -> None:
    if not history_corpus.TREES.is_dir():
        pytest.skip("tests/history/trees is not there (python bench/history_fetch.py)")
    seen, found = internal_lines(history_pairs())
    assert seen >= 300
    assert found == []


def test_the_pattern_finds_what_reports_used_to_hold() -> None:
    for text in ("{BoundMethod(target=Unknown(text='bookstore'), name='checkpoint_path')}/x",
                 "changed from <unresolved: checkpoint_path> to {checkpoint_path}/upsert",
                 "the other is #1899f743", "the output columns changed from unknown to unknown",
                 "steps='#ca261b62'", "Duplicates(subset=None)"):
        assert INTERNAL.search(text), text
    for text in ("changed from checkpoint_path to {checkpoint_path}/upsert",
                 "{bookstore.checkpoint_path}/orders_silver", "window(event_time, WINDOW)"):
        assert not INTERNAL.search(text), text


BOOKSTORE = '''\
from pyspark.sql import functions as F
from course import Bookstore

bookstore = Bookstore()
orders = spark.readStream.format("kafka").option("subscribe", "orders").load()
(orders.groupBy("customer_id").agg(F.sum("amount").alias("total"))
 .writeStream.outputMode("update").format("delta")
 .option("checkpointLocation", f"{bookstore.checkpoint_path}/orders_silver")
 .toTable("orders_silver"))
'''


def test_a_run_time_checkpoint_reads_as_the_code_writes_it(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text(BOOKSTORE)
    (tmp_path / "new.py").write_text(BOOKSTORE.replace("F.sum(", "F.max("))
    report = diff_report(str(tmp_path / "old.py"), str(tmp_path / "new.py"), None)
    (finding,) = report.findings
    assert finding.query == "{bookstore.checkpoint_path}/orders_silver"
    assert finding.remedy is not None
    assert finding.remedy.command == "streamlint checkpoint offsets PATH"
    assert "`{bookstore.checkpoint_path}/orders_silver` in the code: its value is only known " \
           "at run time" in finding.remedy.note
    assert finding.remedy.patch[:2] == (
        '-    .option("checkpointLocation", f"{bookstore.checkpoint_path}/orders_silver")',
        '+    .option("checkpointLocation", f"{bookstore.checkpoint_path}/orders_silver_v2")')


def test_next_uses_the_checkpoint_path_given_on_the_command_line() -> None:
    from streamlint.model import Loc
    from streamlint.report.remedy import remedy
    from streamlint.rulebook.matrix import Finding

    query = extract_text(BOOKSTORE, "job.py").queries[0]
    finding = Finding("AG03", "aggregate-function-swapped", "incompatible", "m", "f", "d",
                      query.label, None, Loc("job.py", 6, 0))
    steps = remedy(finding, None, query, given="s3://lake/chk/orders_silver")
    assert steps.command == "streamlint checkpoint offsets s3://lake/chk/orders_silver"
    assert steps.note == ""
    assert '"s3://lake/chk/orders_silver_v2"' in steps.patch[1]


def test_values_written_the_same_that_differ_say_so() -> None:
    """The same code on both sides naming other values (an item of a list that changed):
    the message never reads "from X to X"."""
    from streamlint.model import Unknown
    from streamlint.rulebook.change import Change
    from streamlint.rulebook.matrix import judge
    from streamlint.rulebook.rule import Runtime, parse_version

    old, new = Unknown("spec (an item of SPECS: #1)", shown="spec"), Unknown(
        "spec (an item of SPECS: #2)", shown="spec")
    finding = judge(Change("query.name", "the query name", old, new, None, None, "q",
                           {"stateful": "false"}), Runtime(parse_version("3.5")))
    assert "from spec to spec (written the same, but what it reads changed)" in finding.message
