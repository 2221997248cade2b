"""Real public PySpark Structured Streaming jobs (tests/realworld) and realistic edits of them.

tests/realworld/MANIFEST.toml lists every file with the number of streaming queries counted by
reading the code; tests/realworld/EDITS.toml lists edits whose expected verdict was decided from
the Spark guide and the Databricks matrix before streamlint ran. Neither is ever adjusted to the
tool's output: a failure here is a miss of the tool (notebooks, `.table()` sinks, DLT/SDP,
several modules...), reported by `python bench/realworld.py` as numbers.

All file access goes through `load_job`, the one place where notebook, module and pipeline
support gets wired in.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_file
from streamlint.model import JobFile

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REALWORLD = Path(__file__).parent / "realworld"
VERDICTS = ("compatible", "review", "incompatible")
KINDS = {"script", "class_processor", "databricks_export", "ipynb", "dlt", "sdp",
         "module_helper", "multi_module_entry"}


def load_job(path: Path) -> JobFile:
    """Read one job file of the corpus: the single entry point the team extends."""
    return extract_file(str(path))


def load_manifest() -> list[dict[str, Any]]:
    with (REALWORLD / "MANIFEST.toml").open("rb") as handle:
        return tomllib.load(handle)["file"]


def load_edits() -> list[dict[str, Any]]:
    with (REALWORLD / "EDITS.toml").open("rb") as handle:
        return tomllib.load(handle)["edit"]


def is_entry(entry: dict[str, Any]) -> bool:
    """A file that is a job of its own (helper modules are only read for their importers)."""
    return entry["kind"] != "module_helper"


def apply_edit(edit: dict[str, Any], workdir: Path) -> tuple[Path, Path]:
    """Copy the edited file's repository folder to workdir (imports between its modules keep
    resolving), apply the edit there and return (original path, edited path)."""
    original = REALWORLD / edit["file"]
    text = original.read_text(encoding="utf-8")
    count = text.count(edit["find"])
    assert count == 1, f"{edit['id']}: `find` occurs {count} times in {edit['file']}"
    repo_dir = edit["file"].split("/", 1)[0]
    shutil.copytree(REALWORLD / repo_dir, workdir / repo_dir, dirs_exist_ok=True)
    edited = workdir / edit["file"]
    edited.write_bytes(text.replace(edit["find"], edit["replace"]).encode("utf-8"))
    return original, edited


MANIFEST = load_manifest()
EDITS = load_edits()
ENTRIES = [entry for entry in MANIFEST if is_entry(entry)]


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["path"] for entry in MANIFEST])
def test_query_count(entry: dict[str, Any]) -> None:
    job = load_job(REALWORLD / entry["path"])
    if is_entry(entry):
        assert len(job.queries) == entry["queries"], entry["notes"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["path"] for entry in ENTRIES])
def test_self_diff_has_no_finding(entry: dict[str, Any]) -> None:
    job = load_job(REALWORLD / entry["path"])
    report = diff_jobs(job, load_job(REALWORLD / entry["path"]))
    assert [(f.code, f.message) for f in report.findings] == []


@pytest.mark.parametrize("edit", EDITS, ids=[edit["id"] for edit in EDITS])
def test_edit_verdict(edit: dict[str, Any], tmp_path: Path) -> None:
    original, edited = apply_edit(edit, tmp_path)
    report = diff_jobs(load_job(original), load_job(edited))
    details = [(f.code, f.verdict, f.message) for f in report.findings]
    assert report.verdict == edit["expected"], (edit["why"], details)


def test_corpus_is_well_formed() -> None:
    paths = [entry["path"] for entry in MANIFEST]
    assert len(paths) == len(set(paths)) >= 50
    assert len({entry["repo"] for entry in MANIFEST}) >= 12
    for entry in MANIFEST:
        assert (REALWORLD / entry["path"]).is_file(), entry["path"]
        assert entry["path"] == entry["repo"].replace("/", "__") + "/" + entry["repo_path"]
        assert entry["kind"] in KINDS, entry["path"]
        assert entry["queries"] >= 0 and entry["notes"] and entry["license"], entry["path"]
    ids = [edit["id"] for edit in EDITS]
    assert len(ids) == len(set(ids)) >= 130
    for edit in EDITS:
        assert edit["expected"] in VERDICTS and edit["why"], edit["id"]
        assert edit["file"] in paths, edit["id"]
