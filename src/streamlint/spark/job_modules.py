"""Each job run imports its own version's modules, and writes nothing next to them.

Python keeps every imported module in `sys.modules`: without care, the new version of a job
that imports `mylib.transforms` would get the old version's module, still cached from the
old run, and Spark would be asked about the old code twice (a false all-clear). So while a job
runs, modules named like anything in its folder are hidden, and every module the run imported
from outside the Python installation is forgotten when it ends. Bytecode is not written: a
`__pycache__` folder in the user's tree would be a write into their files.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from streamlint.extract.project import DEFAULT_SOURCE_ROOTS, project_root


def _local_names(folder: Path) -> set[str]:
    """Top-level module names the folder provides (`name.py`, `name/`)."""
    names: set[str] = set()
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            stem = entry.stem if entry.suffix == ".py" else entry.name
            if stem.isidentifier() and (entry.suffix == ".py" or entry.is_dir()):
                names.add(stem)
    return names


def _installed_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[1])}
    return tuple(str(Path(r).resolve()) for r in roots if r)


def _is_installed(module: ModuleType, roots: tuple[str, ...]) -> bool:
    """A module of the Python installation or of streamlint itself (kept across runs)."""
    location = getattr(module, "__file__", None)
    if not location:
        return True  # built-in, frozen or namespace: nothing of the job's
    try:
        where = str(Path(location).resolve())
    except (OSError, RuntimeError):
        return False
    return where.startswith(roots)


def import_roots(job: Path) -> list[str]:
    """Where the job's own imports resolve: its folder, then its repository's root and
    source roots (`extract.project`: the nearest folder with .git, pyproject.toml or
    setup.py; "" and "src")."""
    root = project_root(str(job))
    roots = [job.parent.resolve(), *((root / r).resolve() for r in DEFAULT_SOURCE_ROOTS)]
    out: list[str] = []
    for folder in roots:
        if folder.is_dir() and str(folder) not in out:
            out.append(str(folder))
    return out


@contextlib.contextmanager
def own_modules(job: Path) -> Iterator[None]:
    """Run the block with the job's folder's modules imported fresh, then forgotten."""
    roots = _installed_roots()
    # Names the job's folder and repository provide; never a module of the installation or
    # of streamlint itself (a job inside a checkout of streamlint must not unload it).
    local = {name for folder in import_roots(job) for name in _local_names(Path(folder))}
    local -= {name for name in local
              if name in sys.modules and _is_installed(sys.modules[name], roots)}
    local.discard("streamlint")
    hidden = {name: module for name, module in sys.modules.items()
              if name.split(".", 1)[0] in local}
    for name in hidden:
        del sys.modules[name]
    before = set(sys.modules)
    saved_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.dont_write_bytecode = saved_bytecode
        for name in set(sys.modules) - before:
            module = sys.modules.get(name)
            if module is not None and (name.split(".", 1)[0] in local
                                       or not _is_installed(module, roots)):
                del sys.modules[name]
        sys.modules.update(hidden)
