"""Pairs two reviews of the guard-clause, same-DataFrame-fork and chosen-function changes found
reading compatible where a branch the run may take does not restart (tests/review_cases/<case>/
old.py and new.py, each changed in the branch or the setting named below). Each must be a
finding a person sees; none may read compatible.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

CASES = Path(__file__).parent / "review_cases"

# case: (what changed, the verdict, codes that must be among the findings)
EXPECTED = {
    # A guard returns a function, an object or a reader: not a guard clause, each is a choice.
    "g6": ("the keys of the object a guard may return", "incompatible", {"DD01"}),
    "g7": ("the function a guard may return", "incompatible", {"DD01"}),
    "g11": ("the reader a guard may return", "incompatible", {"SO03"}),
    # Written before the guard, overwritten after it: the early path leaves the first value.
    "g3": ("the DataFrame the early path leaves in self.df", "review", {"UN01"}),
    # A helper filling the caller's dict (dict.update) changes that dict.
    "g8": ("the DataFrame a helper puts in the caller's dict", "incompatible", {"DD01"}),
    # A reader chosen at run time: the other one's source is noted.
    "g11b": ("the source of the reader not followed", "review", {"UN01"}),
    # Forks whose other branch's settings change how the same change is judged.
    "ct1": ("a watermark, with a continuous trigger on the other branch", "review", {"UN01"}),
    "om1": ("append to update, with a parquet sink on the other branch", "review", {"UN01"}),
    "qn1": ("the query name, with a memory sink on the other branch", "review", {"UN01"}),
    # Second review. What one branch or one chosen function writes beyond its names (dict
    # items, attributes, a dict updated in place) no longer leaks into the others: each place
    # holds a choice among what they left.
    "altdict": ("the topic one chosen function puts in a dict", "review", {"UN02"}),
    "altheap": ("the grouping of the DataFrame one chosen function sets", "incompatible",
                {"AG01"}),
    "dictalias": ("the topic in a dict one branch updates in place", "review", {"UN02"}),
    "dictalias2": ("the topic in a dict one branch sets an item of", "review", {"UN02"}),
    "attrbr": ("the DataFrame the first branch sets as an attribute", "review", {"UN01"}),
    # A transformWithState processor chosen at run time: each one's state counts.
    "tws": ("the state the second processor declares", "review", {"UN02"}),
    "tws2": ("the state the first processor declares", "review", {"UN02"}),
    # A branch that is a value not known is its code's text in the note's digest.
    "rdunk": ("the topic an unknown reader of the other branch is given", "review", {"UN01"}),
    "dfunk": ("the topic an unknown DataFrame of the other branch is given", "review",
              {"UN01"}),
    # Chosen functions calling chosen functions, deeper than they are followed: the module's
    # code stands for what is not read.
    "blow": ("a column in the innermost chosen function", "review", {"UN01"}),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_review_case_is_a_finding(case: str) -> None:
    old = (CASES / case / "old.py").read_text()
    new = (CASES / case / "new.py").read_text()
    assert old != new
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    _, verdict, codes = EXPECTED[case]
    assert report.verdict == verdict
    assert codes <= {f.code for f in report.findings}


def test_every_case_is_expected() -> None:
    assert {p.name for p in CASES.iterdir() if p.is_dir()} == set(EXPECTED)
