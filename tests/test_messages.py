"""No report shows streamlint's internals: every corpus pair, rendered in every format, is
free of record reprs, Python object addresses and the extractor's markers."""

from __future__ import annotations

import re

import pytest
from cases import ROOTS, load_cases

from streamlint.diff import diff_jobs
from streamlint.extract import extract_file
from streamlint.report import render

CASES = load_cases(ROOTS["corpus"], "corpus")
# What must never reach a person: a record's or a class's repr, an object address, the
# marker the extractor once wrote inside strings.
INTERNAL = re.compile(
    r"\b(?:Col|Column|Call|Binary|Unary|Alias|Literal|Unresolved|Unknown|Template|Plan|"
    r"BoundMethod|FunctionRef|Definition|AggCall|Instance|Writer|Reader|Grouped)\("
    r"|object at 0x|\u27e8\?|<class '")


@pytest.mark.slow
def test_no_report_shows_internal_text() -> None:
    shown = []
    for case in CASES:
        report = diff_jobs(extract_file(str(case.old)), extract_file(str(case.new)))
        for fmt in ("text", "json", "github", "sarif", "markdown"):
            text = render(fmt, [report])
            shown += [f"{case.name} ({fmt}): ...{text[max(0, m.start() - 80):m.end() + 40]}"
                      for m in INTERNAL.finditer(text)]
    assert shown == []


def test_the_pattern_sees_internal_text() -> None:
    assert INTERNAL.search("the grouping keys changed from Column(name='a', qualifier=None)")
    assert INTERNAL.search("<streamlint.extract.spark_values.Plan object at 0x7f>")
    assert not INTERNAL.search("the aggregate sum(amount) became max(amount)")


def test_a_long_column_list_is_named_by_what_was_added_and_removed() -> None:
    from streamlint.extract import extract_text

    cols = [f"c{i}" for i in range(20)]
    job = ('df = spark.readStream.format("kafka").option("subscribe", "in").load()\n'
           'df.select({}).writeStream.format("delta").option("checkpointLocation", "/chk/c")'
           '.start("/t/c")\n')
    old = job.format(", ".join(f'"{c}"' for c in cols))
    new = job.format(", ".join(f'"{c}"' for c in [*cols[:5], "x1", "x2", *cols[5:18]]))
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    [finding] = [f for f in report.findings if f.code == "PR03"]
    assert finding.message == ("the output columns changed: added x1, x2; removed c18, c19 "
                               "(20 before, 20 now)")


def test_a_short_column_list_is_shown_whole() -> None:
    from streamlint.extract import extract_text

    job = ('df = spark.readStream.format("kafka").option("subscribe", "in").load()\n'
           'df.select({}).writeStream.format("delta").option("checkpointLocation", "/chk/c")'
           '.start("/t/c")\n')
    report = diff_jobs(extract_text(job.format('"a", "b"'), "old.py"),
                       extract_text(job.format('"a", "c"'), "new.py"))
    assert [f.message for f in report.findings if f.code == "PR03"] == [
        "the output columns changed from a, b to a, c"]
