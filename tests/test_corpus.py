"""The public corpus: realistic old/new job pairs, expected verdicts taken from Spark semantics.

Each folder under tests/corpus/ holds old.py, new.py and case.toml (verdict, codes, absent, why,
source, and optionally spark, a Spark version; the format is tests/cases.py's, kind "corpus").
The expectation is never adjusted to streamlint's output.
"""

from __future__ import annotations

from typing import Any

import pytest
from cases import ROOTS, Case, load_cases

from streamlint.diff import Report, diff_jobs
from streamlint.extract import extract_file
from streamlint.rulebook.matrix import DEFAULT_SPARK_VERSION

CORPUS = ROOTS["corpus"]
CASES = load_cases(CORPUS, "corpus")
# A case.toml may say `known_gap = "why"`: streamlint does not give the expected answer yet
# (never one that fails open: a gap is an under-call, checked below). Strict: the day it
# passes, the test says so and the gap is removed.


def _param(case: Case) -> Any:
    marks = [pytest.mark.xfail(reason=case.known_gap, strict=True)] if case.known_gap else []
    return pytest.param(case, id=case.name, marks=marks)


def _report(case: Case) -> Report:
    return diff_jobs(extract_file(str(case.old)), extract_file(str(case.new)),
                     case.spark_version or DEFAULT_SPARK_VERSION)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_corpus_case(case: Case) -> None:
    old = extract_file(str(case.old))
    new = extract_file(str(case.new))
    assert old.queries, "old.py must contain a streaming query"
    assert new.queries, "new.py must contain a streaming query"

    report = diff_jobs(old, new, case.spark_version or DEFAULT_SPARK_VERSION)
    found = [f.code for f in report.findings]
    details = [(f.code, f.verdict) for f in report.findings]

    assert report.verdict == case.verdict, details
    assert [c for c in case.codes if c not in found] == [], details
    assert [c for c in case.absent if c in found] == [], details


def test_a_known_gap_never_fails_open() -> None:
    """Where streamlint's answer is not the expected one yet, it is still not "compatible"
    for a change that is not."""
    for case in CASES:
        if case.known_gap and case.verdict != "compatible":
            assert _report(case).verdict != "compatible", case.name


def test_corpus_cases_are_well_formed() -> None:
    """The loader checks each case.toml (tests/cases.py); the corpus keeps its size."""
    assert len(CASES) >= 44
    assert all(case.verdict and case.why and case.source for case in CASES)


@pytest.mark.slow
def test_no_change_falls_through_the_rules() -> None:
    """Every change the corpus produces meets a rule (SL000 is the fallback for none)."""
    for case in CASES:
        report = diff_jobs(extract_file(str(case.old)), extract_file(str(case.new)))
        assert "SL000" not in {f.code for f in report.findings}, case.name


@pytest.mark.slow
def test_every_job_compared_with_itself_has_nothing_to_say() -> None:
    """An unchanged file is unchanged: only code from other modules (UN01) is worth a look."""
    jobs = sorted([*CORPUS.glob("*/*.py"), *(CORPUS.parent / "jobs").glob("*.py")])
    assert len(jobs) > 300
    for path in jobs:
        job = extract_file(str(path))
        codes = {f.code for f in diff_jobs(job, extract_file(str(path))).findings}
        assert codes <= {"UN01"}, (path, codes)
