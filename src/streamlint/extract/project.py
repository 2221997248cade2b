"""Where a job's other files come from: the disk for `diff`, one git ref for `check`.

Following an import (`from jobs.io import build_writer`) or a notebook's `%run ./config`
needs the text of another file of the same repository, as of the same version as the job.
Extraction asks a `Project` for it and never opens files itself, so `check` can hand in the
base ref's files on one side and the head's on the other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from streamlint.extract.globs import glob_match
from streamlint.extract.text import read_text
from streamlint.model.errors import InputError
from streamlint.model.records import record

# Where packages live below a repository root, besides the root itself.
DEFAULT_SOURCE_ROOTS = ("", "src")


class Files(Protocol):
    """Reads a file of the project by its root-relative POSIX path; None when it is absent."""

    def read(self, path: str) -> str | None: ...

    def matching(self, pattern: str) -> list[str]:
        """Root-relative paths of the files a glob names (`resources/*.yml`, `**`), sorted."""
        ...


@record
class DiskFiles:
    """The files under a folder on disk (what `diff OLD NEW` reads)."""

    root: str

    def read(self, path: str) -> str | None:
        full = Path(self.root, path)
        if not full.is_file():
            return None
        try:
            return read_text(str(full))
        except InputError:
            return None

    def matching(self, pattern: str) -> list[str]:
        # Walked from the pattern's fixed folder only: `resources/*.yml` lists one folder.
        fixed = []
        for part in pattern.split("/")[:-1]:
            if any(c in part for c in "*?["):
                break
            fixed.append(part)
        start = Path(self.root, *fixed)
        if not start.is_dir():
            return []
        found = []
        for folder, folders, names in os.walk(start):
            folders[:] = [f for f in folders if not f.startswith(".")]  # .git, .venv
            found += [Path(os.path.relpath(Path(folder, name), self.root)).as_posix()
                      for name in names]
        return sorted(p for p in found if glob_match(pattern, p))


@record
class MappingFiles:
    """Files already read (from git, or in tests): path -> text. Picklable for worker pools."""

    texts: Mapping[str, str]

    def read(self, path: str) -> str | None:
        return self.texts.get(path)

    def matching(self, pattern: str) -> list[str]:
        return sorted(p for p in self.texts if glob_match(pattern, p))


@record
class Project:
    """A job's repository as one version sees it: its files and where packages start."""

    files: Files
    job: str  # the job's own root-relative POSIX path
    source_roots: tuple[str, ...] = DEFAULT_SOURCE_ROOTS


def project_root(path: str) -> Path:
    """The repository a job file on disk belongs to: the nearest folder upwards holding
    `.git`, `pyproject.toml` or `setup.py`, else the nearest holding a Databricks bundle
    (`databricks.yml`, whose paths reach the files beside it), else the file's own folder."""
    start = Path(path).resolve().parent
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in (".git", "pyproject.toml", "setup.py")):
            return folder
    for folder in (start, *start.parents):
        if any((folder / name).is_file() for name in ("databricks.yml", "databricks.yaml")):
            return folder
    return start


def on_disk(path: str, source_roots: tuple[str, ...] = DEFAULT_SOURCE_ROOTS) -> Project:
    """The project of a job file given on the command line."""
    root = project_root(path)
    job = Path(os.path.relpath(Path(path).resolve(), root)).as_posix()
    return Project(DiskFiles(str(root)), job, source_roots)
