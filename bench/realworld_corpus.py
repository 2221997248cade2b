"""The real-world corpus: real public streaming jobs, read where they live, never committed.

The jobs' code stays out of this repository (it is other people's code, used as test input).
`tests/realworld/MANIFEST.toml` (committed) names each file: repository, path, commit, license,
the sha256 of its bytes, and the streaming queries counted by reading it; `EDITS.toml`
(committed) holds realistic edits, each a short `find` quote and its replacement, with the
verdict decided from Spark's documentation before streamlint ran. The files themselves are
materialised under `tests/realworld/<owner>__<repo>/` (git-ignored) by
`python bench/realworld_fetch.py` from local snapshots of the repositories.

All file access goes through `load_job`, so notebook, module and pipeline support is measured
exactly as `streamlint diff` uses it.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REALWORLD = ROOT / "tests" / "realworld"
VERDICTS = ("compatible", "review", "incompatible")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def load_job(path: Path) -> Any:
    """Read one job of the corpus the way `streamlint diff` reads a file of its repository:
    the repository is the `<owner>__<repo>` folder (an edited copy lives elsewhere, with no
    `.git` above it to say where its repository starts)."""
    import os

    from streamlint.extract import extract_file
    from streamlint.extract.project import DiskFiles, Project

    root = next((p for p in path.parents if "__" in p.name), path.parent)
    job = Path(os.path.relpath(path, root)).as_posix()
    return extract_file(str(path), Project(DiskFiles(str(root)), job))


def load_manifest() -> list[dict[str, Any]]:
    with (REALWORLD / "MANIFEST.toml").open("rb") as handle:
        return tomllib.load(handle)["file"]


def load_edits() -> list[dict[str, Any]]:
    with (REALWORLD / "EDITS.toml").open("rb") as handle:
        return tomllib.load(handle)["edit"]


def is_entry(entry: dict[str, Any]) -> bool:
    """A file that is a job of its own (helper modules are only read for their importers)."""
    return entry["kind"] != "module_helper"


def missing(manifest: list[dict[str, Any]]) -> list[str]:
    return [e["path"] for e in manifest if not (REALWORLD / e["path"]).is_file()]


def apply_edit(edit: dict[str, Any], workdir: Path) -> tuple[Path, Path]:
    """Copy the edited file's repository folder to workdir (imports between its modules keep
    resolving), apply the edit there and return (original path, edited path)."""
    original = REALWORLD / edit["file"]
    text = original.read_text(encoding="utf-8")
    count = text.count(edit["find"])
    if count != 1:
        raise ValueError(f"{edit['id']}: `find` occurs {count} times in {edit['file']}")
    repo_dir = edit["file"].split("/", 1)[0]
    shutil.copytree(REALWORLD / repo_dir, workdir / repo_dir, dirs_exist_ok=True)
    edited = workdir / edit["file"]
    edited.write_bytes(text.replace(edit["find"], edit["replace"]).encode("utf-8"))
    return original, edited
