"""Formatters: pure functions from reports to text, each format in its own module.

`diff` renders one report, `check` several; the pull-request formats (github, sarif,
markdown) take the list either way, so both commands print the same thing for one file.
What the formats say alike is in `shared`.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from streamlint.diff import Report
from streamlint.model.errors import FileError
from streamlint.report import text
from streamlint.report.result import Result

# The formats besides text, each a module of this package, imported when it is asked for
# (as cli/__init__ does for the commands): `diff` in its default format never loads them.
FORMATTERS = frozenset({"json", "github", "sarif", "markdown"})


def _formatter(fmt: str) -> ModuleType:
    if fmt not in FORMATTERS:
        raise ValueError(f"no report format {fmt!r}")  # the CLI offers only the formats above
    return importlib.import_module(f"streamlint.report.{fmt}")


def render(fmt: str, reports: list[Report], errors: tuple[FileError, ...] = (),
           root: str | None = None, single: bool = False) -> str:
    """Dispatch to a format; `single` keeps `diff`'s own text and JSON layout."""
    return render_result(fmt, Result(tuple(reports), errors, single), root)


def render_result(fmt: str, result: Result, root: str | None = None) -> str:
    """Any result (diff, diff --checkpoint, --confirm, check) in any format."""
    confirmation = result.confirmation
    reports = list(result.reports)
    if fmt == "text":
        out = (text.render(reports[0]) if result.single
               else text.render_all(reports, result.errors))
        return out + ("\n".join(confirmation.lines) + "\n" if confirmation else "")
    formatter = _formatter(fmt)
    if fmt == "json":
        return (formatter.render(reports[0], confirmation) if result.single
                else formatter.render_all(reports, result.errors, confirmation))
    return formatter.render(reports, result.errors, root, confirmation)


def render_for(fmt: str, result: Result, new: str) -> str:
    """A result of `diff` (with --checkpoint or --confirm too) in any format, the pull-request
    formats' paths relative to the repository of the new file."""
    root = repository_root(new) if fmt in ("github", "sarif", "markdown") else None
    return render_result(fmt, result, root)


def repository_root(path: str) -> str:
    """Where the pull-request formats' paths start: the git repository, else the cwd.

    Found by looking for `.git` upwards, as git does, rather than by running git: `diff`
    starts no process (tests/test_static_proofs.py).
    """
    current = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.getcwd()
        current = parent
