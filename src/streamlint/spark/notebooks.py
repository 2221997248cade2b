"""Running a notebook (`.ipynb`, or a Databricks `.py` export) as its cells run, in order.

The static front end turns a notebook into the Python a run executes (`extract.notebook`):
code cells in order, line magics neutral, `%run ./other` as a call that runs the other
notebook in the same namespace, SQL cells as `spark.sql(...)`. The confirmation runs that
same source, with the hooks it calls given a meaning here: `%run` executes its target (up to
a depth), a magic's output is None, and a shell `rm -rf` removes nothing (a run never deletes
the user's files).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamlint.extract import notebook_cells as cells
from streamlint.extract.notebook import convert
from streamlint.extract.removals import REMOVE_HOOK
from streamlint.model.errors import InputError

MAX_RUN_DEPTH = 8


def runnable(job: Path, text: str) -> str | None:
    """The notebook in `text` as Python to execute, or None when `job` is a plain Python file
    (or a notebook streamlint cannot convert: it then runs as it is)."""
    try:
        converted = convert(text, str(job))
    except InputError:
        return None
    return None if converted is None else converted.source


def hooks(job: Path, namespace: dict[str, Any], warn: Any, depth: int = 0) -> dict[str, Any]:
    """The names the converted source calls, bound for a run in `namespace`."""

    def run(target: str, *_: Any, **__: Any) -> None:
        path = _resolve(job.parent, target)
        if path is None:
            warn(f"%run {target}: no such notebook next to {job.name}; its cells did not run")
            return
        if depth >= MAX_RUN_DEPTH:
            warn(f"%run {target}: more than {MAX_RUN_DEPTH} notebooks deep; not run")
            return
        text = path.read_text(encoding="utf-8", errors="replace")
        source = runnable(path, text) or text
        namespace.update(hooks(path, namespace, warn, depth + 1))
        exec(compile(source, str(path), "exec"), namespace)  # noqa: S102 - the user's notebook
        namespace.update(hooks(job, namespace, warn, depth))

    return {cells.RUN_HOOK: run, cells.MAGIC_VALUE: lambda *a, **k: None,
            REMOVE_HOOK: lambda *a, **k: None, "get_ipython": lambda: _IPython()}


class _IPython:
    """`get_ipython()` in a notebook saved as code: its magics do nothing here."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def _resolve(folder: Path, target: str) -> Path | None:
    base = (folder / target) if not target.startswith("/") else Path(target)
    for candidate in (base, base.with_name(base.name + ".py"),
                      base.with_name(base.name + ".ipynb")):
        if candidate.is_file():
            return candidate
    return None
