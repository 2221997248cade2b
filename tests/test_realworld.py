"""The real-world corpus's manifest and edits (the jobs themselves are measured by
`python bench/realworld.py`: they are other people's code and never committed, see
bench/realworld_corpus.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from realworld_corpus import VERDICTS, load_edits, load_manifest  # noqa: E402

KINDS = {"script", "class_processor", "databricks_export", "ipynb", "dlt", "sdp",
         "module_helper", "multi_module_entry"}
PERMISSIVE = {"Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause"}


def test_every_file_names_its_origin_and_a_permissive_license() -> None:
    manifest = load_manifest()
    paths = [entry["path"] for entry in manifest]
    assert len(paths) == len(set(paths)) >= 40
    assert len({entry["repo"] for entry in manifest}) >= 10
    for entry in manifest:
        assert entry["path"] == entry["repo"].replace("/", "__") + "/" + entry["repo_path"]
        assert entry["kind"] in KINDS, entry["path"]
        assert entry["license"] in PERMISSIVE, entry["path"]
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]), entry["path"]
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), entry["path"]
        assert entry["queries"] >= 0 and entry["notes"], entry["path"]


def test_edits_have_a_documented_verdict_and_enough_of_each() -> None:
    paths = {entry["path"] for entry in load_manifest()}
    edits = load_edits()
    ids = [edit["id"] for edit in edits]
    assert len(ids) == len(set(ids)) >= 120
    for edit in edits:
        assert edit["expected"] in VERDICTS and edit["why"], edit["id"]
        assert edit["file"] in paths and edit["find"] != edit["replace"], edit["id"]
    expected = [edit["expected"] for edit in edits]
    assert expected.count("incompatible") >= 60 and expected.count("compatible") >= 30
