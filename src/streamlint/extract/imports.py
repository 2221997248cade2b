"""Imports found by their text, and where they may lead: no libcst, no parsing.

`streamlint check` uses this to know, before any worker runs, which of the repository's
modules a job may import (its texts are shipped with the job); the extractor's `Loader`
(`modules.py`) resolves imports with the same functions, so the two agree on where a module
is looked for.
"""

from __future__ import annotations

import posixpath
import re
import sys
from functools import lru_cache
from typing import Any

MAX_MODULES = 200  # modules followed for one job
# Never looked up in the repository: the standard library and what the interpreter knows.
_OUTSIDE = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "pyspark", "py4j", "delta", "dlt", "pandas", "numpy", "pyarrow", "__future__"}


def module_files(path: str) -> tuple[str, str]:
    """The two files a dotted module's path may be: `a/b.py` or `a/b/__init__.py`."""
    return f"{path}.py", f"{path}/__init__.py"


def search_roots(job: str, source_roots: tuple[str, ...]) -> tuple[str, ...]:
    """Where absolute imports are looked for, in order: the job's folder, the roots, then the
    folders above the job, nearest first (`python/pkg/jobs/x.py` importing `pkg.util` runs
    with `python/` on its path; a repository rarely says so in a way a linter can read)."""
    roots = [posixpath.dirname(job)]
    roots += [root.strip("/") for root in source_roots]
    folder = posixpath.dirname(job)
    while folder:
        folder = posixpath.dirname(folder)
        roots.append(folder)
    return tuple(dict.fromkeys(_clean(root) for root in roots))


def _clean(path: str) -> str:
    path = posixpath.normpath(path) if path else ""
    return "" if path == "." else path


def join(*parts: str) -> str:
    kept = [p for p in parts if p]
    return _clean(posixpath.join(*kept)) if kept else ""


def package_folder(importer: str, level: int) -> str | None:
    """The folder a relative import (`from ..common import x`, level 2) starts from."""
    folder = posixpath.dirname(importer)
    for _ in range(level - 1):
        if not folder:
            return None  # above the repository root
        folder = posixpath.dirname(folder)
    return folder


def is_outside(dotted: str) -> bool:
    return dotted.split(".")[0] in _OUTSIDE


# -- the import graph, without parsing ------------------------------------------------------

# Import statements found by their text: a superset of what the interpreter follows (one in
# a docstring counts too), so whatever it may read is known beforehand (`check` ships these
# files to its workers).
_FROM_RE = re.compile(r"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*"
                      r"(\([^)]*\)|[^\n#;]*)", re.MULTILINE)
_IMPORT_RE = re.compile(r"^[ \t]*import[ \t]+([^\n#;]*)", re.MULTILINE)
_NAME_RE = re.compile(r"[A-Za-z_][\w.]*")
_COMMENT_RE = re.compile(r"#[^\n]*")


def imports_of(text: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(level, module, names) of every import written in a file: `import a.b as c` is
    (0, "a.b", ()), `from ..x import y, z` is (2, "x", ("y", "z"))."""
    found: list[tuple[int, str, tuple[str, ...]]] = []
    if "import" not in text:
        return found
    text = text.replace("\\\n", " ")  # a statement continued over lines
    for match in _IMPORT_RE.finditer(text):
        for part in match.group(1).split(","):
            words = part.split()
            if words and _NAME_RE.fullmatch(words[0]):
                found.append((0, words[0], ()))
    for match in _FROM_RE.finditer(text):
        listed = _COMMENT_RE.sub("", match.group(3)).strip("()\\ \t")
        names = tuple(n for n in (part.split()[0] for part in listed.split(",") if part.split())
            if _NAME_RE.fullmatch(n) and n != "import")
        found.append((len(match.group(1)), match.group(2), names))
    return found


def candidates(importer: str, level: int, module: str, names: tuple[str, ...],
               roots: tuple[str, ...]) -> list[str]:
    """Every file an import may read, whichever exists: the module under each root, its
    `__init__.py`s, and each imported name as a submodule."""
    # An absolute import means the same from any file: one answer per statement and roots.
    return _candidates(posixpath.dirname(importer) if level else "", level, module, names,
                       roots)


@lru_cache(maxsize=4096)
def _candidates(importer_folder: str, level: int, module: str, names: tuple[str, ...],
                roots: tuple[str, ...]) -> list[str]:
    importer = importer_folder + "/x.py" if importer_folder else "x.py"
    if level:
        folder = package_folder(importer, level)
        if folder is None:
            return []
        starts: tuple[str, ...] = (folder,)
    else:
        if not module or is_outside(module):
            return []
        starts = roots
    out: list[str] = []
    parts = module.split(".") if module else []
    for start in starts:
        for depth in range(1, len(parts) + 1):
            out.extend(module_files(join(start, *parts[:depth])))
        base = join(start, *parts)
        if not parts:
            out.append(join(base, "__init__.py"))
        out.extend(f for name in names for f in module_files(join(base, name)))
    return out


def reachable(job: str, text: str, read: Any, roots: tuple[str, ...],
              limit: int = MAX_MODULES) -> dict[str, str]:
    """The repository's modules a file's imports reach, transitively: path -> text.

    `read(path)` gives a file's text or None. Each file is scanned with `imports_of`, never
    parsed; the job's own folder comes first among the roots of each file's search, as for
    the interpreter.
    """
    seen: dict[str, str] = {}
    pending = [(job, text)]
    while pending and len(seen) < limit:
        path, current = pending.pop()
        for level, module, names in imports_of(current):
            for candidate in candidates(path, level, module, names, roots):
                if candidate in seen or candidate == job:
                    continue
                found = read(candidate)
                if found is not None:
                    seen[candidate] = found
                    pending.append((candidate, found))
    return seen
