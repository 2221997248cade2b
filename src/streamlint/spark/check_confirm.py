"""`streamlint check --base REF --confirm`: every changed job of a pull request confirmed by
Spark in one JVM, each side run from its own version of the repository.

The base version (and `--head`, when given) is exported with `git archive` into a temporary
folder, never checked out over the working tree; without `--head` the new side is the working
tree as it is. A job's helper modules, `%run` targets and data files come from its own version
(`job_modules` forgets one run's modules before the next).
"""

from __future__ import annotations

import io
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from streamlint.diff import Report
from streamlint.spark.confirm import confirm_files
from streamlint.workflow.git import run_git


def export_tree(root: Path, ref: str, into: Path) -> Path:
    """The repository's files at `ref`, written under `into` (one `git archive`)."""
    data = run_git(root, "archive", "--format=tar", ref)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12+: no links out of `into`
            archive.extractall(into, filter="data")
        else:  # pragma: no cover - older 3.10: git archive of a ref holds no absolute paths
            archive.extractall(into)  # noqa: S202
    return into


@contextmanager
def versions(root: Path, base: str, head: str | None) -> Iterator[tuple[Path, Path]]:
    """(the base version's folder, the head version's folder), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="streamlint-check-confirm-") as tmp:
        old = export_tree(root, base, Path(tmp) / "base")
        new = export_tree(root, head, Path(tmp) / "head") if head else root
        yield old, new


def confirm_reports(root: Path, base: str, head: str | None, reports: list[Report],
                    session: Any, tables: dict[str, str], timeout: float
                    ) -> list[tuple[Report, Any]]:
    """(report, Spark's confirmation) for each changed job with a query on both sides; jobs
    added or deleted have nothing to restart and are left to the static report."""
    out: list[tuple[Report, Any]] = []
    with versions(root, base, head) as (old_root, new_root):
        for report in reports:
            if not (report.old.queries and report.new.queries):
                continue
            # Git mode names the old side `REF:path`.
            old_rel = report.old.path.removeprefix(f"{base}:")
            new_rel = report.new.path.removeprefix(f"{head}:") if head else report.new.path
            old_path, new_path = old_root / old_rel, new_root / new_rel
            if not (old_path.is_file() and new_path.is_file()):
                continue
            out.append((report, confirm_files(old_path, new_path, session, tables,
                                              timeout=timeout, static=(report.old, report.new))))
    return out
