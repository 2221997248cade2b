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
    assert INTERNAL.search("<streamlint.extract.values.Plan object at 0x7f>")
    assert not INTERNAL.search("the aggregate sum(amount) became max(amount)")
