"""The public corpus: realistic old/new job pairs, expected verdicts taken from Spark semantics.

Each folder under tests/corpus/ holds old.py, new.py and case.toml (verdict, codes, absent, why,
source, and optionally spark). The expectation is never adjusted to streamlint's output.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_file
from streamlint.rules import DEFAULT_SPARK_VERSION

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p for p in CORPUS.iterdir() if (p / "case.toml").is_file())
# A case.toml may say `known_gap = "why"`: streamlint does not give the expected answer yet
# (never one that fails open: a gap is an under-call, checked below). Strict: the day it
# passes, the test says so and the gap is removed.
VERDICTS = {"compatible", "review", "incompatible"}


def load_case(folder: Path) -> dict[str, Any]:
    with (folder / "case.toml").open("rb") as handle:
        return tomllib.load(handle)


def _param(folder: Path) -> Any:
    gap = load_case(folder).get("known_gap")
    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
    return pytest.param(folder, id=folder.name, marks=marks)


@pytest.mark.parametrize("folder", [_param(p) for p in CASES])
def test_corpus_case(folder: Path) -> None:
    case = load_case(folder)
    old = extract_file(str(folder / "old.py"))
    new = extract_file(str(folder / "new.py"))
    assert old.queries, "old.py must contain a streaming query"
    assert new.queries, "new.py must contain a streaming query"

    report = diff_jobs(old, new, case.get("spark", DEFAULT_SPARK_VERSION))
    found = [f.code for f in report.findings]
    details = [(f.code, f.verdict) for f in report.findings]

    assert report.verdict == case["verdict"], details
    assert [c for c in case["codes"] if c not in found] == [], details
    assert [c for c in case.get("absent", []) if c in found] == [], details


def test_a_known_gap_never_fails_open() -> None:
    """Where streamlint's answer is not the expected one yet, it is still not "compatible"
    for a change that is not."""
    for folder in CASES:
        case = load_case(folder)
        if not case.get("known_gap"):
            continue
        report = diff_jobs(extract_file(str(folder / "old.py")),
                           extract_file(str(folder / "new.py")),
                           case.get("spark", DEFAULT_SPARK_VERSION))
        if case["verdict"] != "compatible":
            assert report.verdict != "compatible", folder.name


def test_corpus_cases_are_well_formed() -> None:
    assert len(CASES) >= 44
    for folder in CASES:
        case = load_case(folder)
        assert case["verdict"] in VERDICTS, folder.name
        assert case["why"] and case["source"], folder.name
        assert not set(case["codes"]) & set(case.get("absent", [])), folder.name
        assert (folder / "old.py").is_file() and (folder / "new.py").is_file(), folder.name


@pytest.mark.slow
def test_no_change_falls_through_the_rules() -> None:
    """Every change the corpus produces meets a rule (SL000 is the fallback for none)."""
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "case.toml").exists()):
        old, new = (extract_file(str(folder / name)) for name in ("old.py", "new.py"))
        report = diff_jobs(old, new)
        assert "SL000" not in {f.code for f in report.findings}, folder.name


@pytest.mark.slow
def test_every_job_compared_with_itself_has_nothing_to_say() -> None:
    """An unchanged file is unchanged: only code from other modules (UN01) is worth a look."""
    jobs = sorted([*CORPUS.glob("*/*.py"), *(CORPUS.parent / "jobs").glob("*.py")])
    assert len(jobs) > 300
    for path in jobs:
        job = extract_file(str(path))
        codes = {f.code for f in diff_jobs(job, extract_file(str(path))).findings}
        assert codes <= {"UN01"}, (path, codes)
