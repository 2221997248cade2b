"""The history corpus: real commits of public streaming jobs, rebuilt where they live, never
committed.

`tests/history/PAIRS.toml` (committed) names each pair: a job file of a public repository at a
commit and at its first parent, the sha256 of the job file on each side, what the commit changed,
and the verdict decided from Spark's and Databricks' documentation **before** streamlint ran
(with a one-line reason). Both sides are rebuilt as the whole repository tree at their commit
(`python bench/history_fetch.py`), under `tests/history/trees/<owner>__<name>/<commit>/`
(git-ignored), so imports, `%run` and config files resolve as they do in CI.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HISTORY = ROOT / "tests" / "history"
TREES = HISTORY / "trees"
VERDICTS = ("compatible", "review", "incompatible")
KINDS = ("script", "ipynb", "databricks_export", "dlt", "sdp", "multi_module_entry")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def load_pairs() -> list[dict[str, Any]]:
    with (HISTORY / "PAIRS.toml").open("rb") as handle:
        return tomllib.load(handle)["pair"]


def tree(pair: dict[str, Any], side: str) -> Path:
    """The folder holding the repository at the pair's `parent` (side "old") or `commit`."""
    commit = pair["parent"] if side == "old" else pair["commit"]
    return TREES / pair["repo"].replace("/", "__") / commit


def job(pair: dict[str, Any], side: str) -> Path:
    path = pair.get("old_path", pair["path"]) if side == "old" else pair["path"]
    return tree(pair, side) / path
