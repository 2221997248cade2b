"""The test cases' one format (tests/cases.py): every case folder in the repository loads, and a
case.toml that does not follow its kind's format is refused with the file and the key named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cases import DATA_SETS, DEFAULT_INPUTS, KINDS, ROOTS, CaseError, Kind, load_case, load_cases

# Pairs that a test runs by name, with no expectations of their own to write down.
WITHOUT_CASE_TOML = {("confirm", "pandas_processing_time_timeout"),
                     ("confirm", "pandas_timeout_empty_batches_on")}


def _folder(tmp_path: Path, toml: str) -> Path:
    folder = tmp_path / "a_case"
    folder.mkdir()
    (folder / "case.toml").write_text(toml)
    for job in ("old.py", "new.py"):
        (folder / job).write_text("")
    return folder


@pytest.mark.parametrize("kind", KINDS)
def test_every_case_folder_loads(kind: Kind) -> None:
    """Each folder under a kind's root is a case that fits its format (or a known pair without
    expectations): a case.toml misnamed or missing does not drop a case unseen."""
    folders = sorted(d for d in ROOTS[kind].iterdir() if d.is_dir())
    cases = load_cases(ROOTS[kind], kind)
    assert len(cases) >= 10
    assert [c.name for c in cases] == [d.name for d in folders
                                       if (kind, d.name) not in WITHOUT_CASE_TOML]
    assert all(c.kind == kind and c.old.is_file() and c.new.is_file() for c in cases)


def test_spark_means_a_version_in_the_corpus_and_an_outcome_elsewhere() -> None:
    (gap,) = [c for c in load_cases(ROOTS["corpus"], "corpus") if c.spark_version]
    assert gap.spark_version == "4.2" and gap.outcome is None
    spark = load_case(ROOTS["spark"] / "agg_sum_to_max", "spark")
    assert spark.outcome == "results-differ" and spark.spark_version is None
    assert spark.inputs == DEFAULT_INPUTS
    platform = load_case(ROOTS["confirm"] / "platform_stubs", "confirm")
    assert (platform.outcome, platform.queries) == ("same-results", 2)


def test_a_misspelt_key_is_refused_with_the_file_and_the_key(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 'verdit = "incompatible"\ncodes = ["AG02"]\nwhy = "w"\n'
                               'source = "s"\n')
    with pytest.raises(CaseError) as refused:
        load_case(folder, "corpus")
    message = str(refused.value)
    assert message.startswith(f"{folder / 'case.toml'}: ")
    assert "unknown key 'verdit' (did you mean 'verdict'?)" in message
    assert "missing key 'verdict'" in message


@pytest.mark.parametrize(("kind", "toml", "said"), [
    ("corpus", 'verdict = "incompatible"\ncodes = []\nwhy = "w"\nsource = "s"\n'
               'spark = "restart-fails"', "spark must be a Spark version"),
    ("spark", 'verdict = "incompatible"\ncodes = []\nwhy = "w"\nspark = "4.2"',
     "spark must be one of ('restart-fails', 'results-differ', 'same-results'), not '4.2'"),
    ("spark", 'verdict = "incompatible"\ncodes = []\nwhy = "w"\nspark = "same-results"\n'
              'error = "X"', "error only goes with spark = 'restart-fails'"),
    ("spark", 'verdict = "incompatible"\ncodes = []\nwhy = "w"\nspark = "same-results"\n'
              '[inputs]\nSTREAMLINT_INPUT = "refunds"', "names unknown data sets ['refunds']"),
    ("confirm", 'spark = "same-results"\nwhy = "w"\nverdict = "compatible"',
     "unknown key 'verdict'"),
    ("confirm", 'spark = "same-results"\nwhy = "w"', "missing key 'family'"),
    ("confirm", 'spark = "same-results"\nwhy = "w"\nfamily = "f"\nqueries = true',
     "queries must be a positive integer"),
    ("corpus", 'verdict = "fine"\ncodes = []\nwhy = "w"\nsource = "s"',
     "verdict must be one of"),
    ("corpus", 'verdict = "review"\ncodes = ["AG08"]\nabsent = ["AG08"]\nwhy = "w"\n'
               'source = "s"', "codes ['AG08'] are also in absent"),
    ("corpus", 'verdict = "review"\ncodes = [\n', "not valid TOML"),
])
def test_a_case_off_its_format_is_refused(tmp_path: Path, kind: Kind, toml: str,
                                          said: str) -> None:
    folder = _folder(tmp_path, toml)
    with pytest.raises(CaseError, match="^" + re.escape(str(folder / "case.toml"))) as refused:
        load_case(folder, kind)
    assert said in str(refused.value)


def test_a_case_needs_both_jobs(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 'spark = "same-results"\nwhy = "w"\nfamily = "f"')
    (folder / "new.py").unlink()
    with pytest.raises(CaseError, match="new.py is missing next to it"):
        load_case(folder, "confirm")


def test_the_data_sets_are_the_harness_ones() -> None:
    from spark_harness import DATASETS

    assert set(DATA_SETS) == set(DATASETS)
