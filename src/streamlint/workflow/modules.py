"""`check` across modules: which jobs import which of the repository's modules, at each ref.

A job's queries may be built by helpers it imports (`from jobs.io import build_writer`), so
a changed helper under an unchanged job changes the job. Nothing here parses Python: imports
are found by their text (`extract.imports.imports_of`) and resolved the way the extractor
will (`candidates`, with the job's own search roots). Files are read in batches, one
`git cat-file` process per ref and import level, and only those an import may reach:

- the modules each changed job may import (its texts go with the job to the worker pool as
  picklable `MappingFiles`, so workers never run git);
- the jobs that import a changed module: `git grep -w` finds the files naming a changed
  module, upwards level by level, and each such job's own imports decide.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from streamlint.extract import decode_source
from streamlint.extract.bundle_runs import runs
from streamlint.extract.bundle_settings import bundle_files
from streamlint.extract.bundles import BUNDLE_FILES, files_run
from streamlint.extract.config_files import CONFIG_SUFFIXES
from streamlint.extract.globs import glob_match
from streamlint.extract.imports import (
    MAX_MODULES,
    candidates,
    imports_of,
    is_outside,
    search_roots,
)
from streamlint.extract.project import DEFAULT_SOURCE_ROOTS, MappingFiles
from streamlint.model.errors import InputError, UsageError
from streamlint.workflow.git import show_many, tree_files

MAX_LEVELS = 16  # importers of importers of a changed module, upwards
MAX_CONFIGS = 50  # files of one name (a `config.yaml` in every folder) given to a job


def _mentions(config: str) -> list[str]:
    """What code that may read `config` writes: its name (python-dotenv for a `.env`), or
    its suffix closing a string (`f"conf/{env}.yaml"`)."""
    name = posixpath.basename(config)
    suffix = posixpath.splitext(name)[1] or name
    return ["dotenv" if name == ".env" else name, f"{suffix}\"", f"{suffix}'"]


def _named(name: str, texts: list[str]) -> bool:
    return any(("dotenv" if name == ".env" else name) in t for t in texts)


def reads_config(config: str, job: str, texts: list[str]) -> bool:
    """Whether a job's code (and its modules') may read `config`: it names the file, or it
    builds a name of its suffix and the file is near (`_near`)."""
    if _named(posixpath.basename(config), texts):
        return True
    suffix = posixpath.splitext(config)[1]
    return bool(suffix) and any(f"{suffix}\"" in t or f"{suffix}'" in t for t in texts) and \
        _near(config, job, texts)


def _near(path: str, job: str, texts: list[str]) -> bool:
    """A file in the job's folder (or below it), or in a folder its code names."""
    folder, here = posixpath.dirname(path), posixpath.dirname(job)
    if folder == here or here and folder.startswith(here + "/"):
        return True
    name = posixpath.basename(folder)
    return bool(folder) and any(f"{folder}/" in t or f"\"{name}\"" in t or f"'{name}'" in t
                                for t in texts)


def is_config(path: str) -> bool:
    name = posixpath.basename(path)
    return name.endswith(CONFIG_SUFFIXES) and not name.endswith(".ipynb")

Imports = list[tuple[int, str, tuple[str, ...]]]


class Side:
    """The repository's Python files at one ref (None: the working tree), read on demand."""

    def __init__(self, root: Path, ref: str | None) -> None:

        self.root, self.ref = root, ref
        listed = tree_files(root, ref)
        self.exists = {p for p in listed if p.endswith((".py", ".ipynb"))}
        # Configuration files a job may read (extract/config_files.py), by file name.
        self.configs: dict[str, list[str]] = {}
        for path in listed:
            if is_config(path):
                self.configs.setdefault(posixpath.basename(path), []).append(path)
        self.texts: dict[str, str | None] = {}
        self._bundles: dict[str, dict[str, str]] = {}
        self._imports: dict[str, Imports] = {}
        self._index: dict[str, set[str]] | None = None

    def load(self, paths: set[str]) -> None:
        """Read the files not read yet, in one batch (None: absent or not text)."""
        missing = sorted(p for p in paths if p not in self.texts)
        if not missing:
            return
        present = [p for p in missing if p in self.exists or is_config(p)]
        if self.ref is None:
            blobs: dict[str, bytes] = {}
            for path in present:
                try:
                    blobs[path] = (self.root / path).read_bytes()
                except OSError:
                    continue
        else:

            blobs = show_many(self.root, self.ref, present)
        for path in missing:
            data = blobs.get(path)
            try:
                self.texts[path] = None if data is None else decode_source(data, path)
            except InputError:
                self.texts[path] = None  # not Python source: nothing can follow it

    def configs_for(self, job: str, texts: list[str]) -> dict[str, str]:
        """The configuration files a job's code may read, path -> text: those it names (`.env`
        files where it uses python-dotenv), and, for a name built at run time
        (`f"conf/{env}.yaml"`), the files of a suffix it writes in its own folder or in a
        folder it names."""
        wanted = {path for name, paths in self.configs.items()
                  if _named(name, texts) for path in paths[:MAX_CONFIGS]}
        built = sorted(path for paths in self.configs.values() for path in paths
                       if path not in wanted and reads_config(path, job, texts))
        wanted.update(built[:MAX_CONFIGS])
        self.load(wanted)
        return {p: self.texts[p] for p in sorted(wanted)  # type: ignore[misc]
                if self.texts.get(p) is not None}

    def bundle(self, job: str) -> dict[str, str]:
        """The files of the Databricks bundle in the job's folder or above (its
        `databricks.yml` and the resource files it includes), path -> text."""
        folder = posixpath.dirname(job)
        while True:
            for name in BUNDLE_FILES:
                path = posixpath.join(folder, name)
                if path in self.configs.get(name, ()):
                    return self.bundle_at(path)
            if not folder:
                return {}
            folder = posixpath.dirname(folder)

    def bundle_at(self, path: str) -> dict[str, str]:
        if path not in self._bundles:
            self.load({path})
            text = self.texts.get(path)
            listed = [p for paths in self.configs.values() for p in paths]
            paths = bundle_files(path, text, lambda pattern: [
                p for p in listed if glob_match(pattern, p)]) if text is not None else []
            self.load(set(paths))
            self._bundles[path] = {p: self.texts[p] for p in paths  # type: ignore[misc]
                                   if self.texts.get(p) is not None}
        return self._bundles[path]

    def bundled(self, changed: set[str]) -> dict[str, list[str]]:
        """Jobs and notebooks a bundle runs whose files changed: path -> those files."""
        found: dict[str, list[str]] = {}
        for name in BUNDLE_FILES:
            for bundle in self.configs.get(name, ()):
                texts = self.bundle_at(bundle)
                hit = sorted(set(texts) & changed)
                if not hit:
                    continue
                run = files_run(MappingFiles(texts), bundle, texts[bundle])
                exact = {p for p, glob in run if not glob}
                globs = [(p, True) for p, glob in run if glob]
                for path in self.exists:
                    if path in exact or posixpath.splitext(path)[0] in exact or any(
                            runs(p, glob, path) for p, glob in globs):
                        found.setdefault(path, []).extend(hit)
        return found

    def readers(self, configs: set[str]) -> set[str]:
        """Python files and notebooks that may read one of `configs`: naming it, or writing a
        name of its kind built at run time (a superset: `reads_config` and extraction decide)."""
        patterns = sorted({p for c in configs for p in _mentions(c)})
        if not patterns:
            return set()
        args = ["git", "grep", "-z", "-I", "-l", "-F"]
        for pattern in patterns:
            args += ["-e", pattern]
        args += ["--untracked"] if self.ref is None else [self.ref]
        import subprocess

        done = subprocess.run([*args, "--", "*.py", "*.ipynb"], cwd=self.root,
                              capture_output=True, check=False)
        if done.returncode not in (0, 1):
            raise UsageError("git grep (finding the jobs that read a changed configuration "
                             "file): " + done.stderr.decode("utf-8", "replace").strip())
        prefix = f"{self.ref}:" if self.ref is not None else ""
        found = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        return {p.removeprefix(prefix) for p in found if p}

    def imports(self, path: str) -> Imports:
        found = self._imports.get(path)
        if found is None:
            found = self._imports[path] = imports_of(self.texts.get(path) or "")
        return found

    def reach(self, jobs: dict[str, str], source_roots: tuple[str, ...]
              ) -> dict[str, dict[str, str]]:
        """For each job (path -> its text here), the modules it may import, transitively:
        path -> text. All jobs advance together, one batch read per level."""
        seen: dict[str, set[str]] = {job: set() for job in jobs}
        pending: dict[str, list[str]] = {job: [job] for job in jobs}
        for job, text in jobs.items():
            self._imports.setdefault(job, imports_of(text))
        while any(pending.values()):
            wanted: dict[str, list[str]] = {}
            for job, paths in pending.items():
                roots = search_roots(job, source_roots)
                found = wanted.setdefault(job, [])
                for path in paths:
                    reads = [c for level, module, names in self.imports(path)
                             for c in candidates(path, level, module, names, roots)]
                    reads += run_targets(path, self.texts.get(path) or jobs.get(path) or "")
                    for candidate in reads:
                        if (candidate in self.exists and candidate != job
                                and candidate not in seen[job]
                                and len(seen[job]) < MAX_MODULES):
                            seen[job].add(candidate)
                            found.append(candidate)
            self.load({p for paths in wanted.values() for p in paths})
            pending = {job: [p for p in paths if self.texts.get(p) is not None]
                       for job, paths in wanted.items()}
        return {job: {p: self.texts[p] for p in sorted(paths)  # type: ignore[misc]
                      if self.texts.get(p) is not None} for job, paths in seen.items()}

    def index(self) -> dict[str, set[str]]:
        """Who imports what, from every import line at this ref (one `git grep`): a key
        per dotted name imported (`a.b`, `a.b.name`), `a.b.*` for a statement continued on
        lines not read (every submodule of a.b), and `path:` keys for relative imports."""
        if self._index is not None:
            return self._index
        # A fixed string is several times cheaper for git than a pattern anchored at the
        # line's start; imports_of keeps only the lines that are import statements.
        args = ["git", "grep", "-z", "-I", "-n", "-F"]
        args += ["--untracked", "-e", "import"] if self.ref is None else [
            "-e", "import", self.ref]
        import subprocess

        done = subprocess.run([*args, "--", "*.py"], cwd=self.root, capture_output=True,
                              check=False)
        if done.returncode not in (0, 1):  # 1: no import line at all
            # Never a silent "no job imports it": the check cannot tell, so it stops.
            raise UsageError("git grep (finding the jobs that import a changed module): "
                             + done.stderr.decode("utf-8", "replace").strip())
        out = done.stdout.decode("utf-8", "surrogateescape")
        prefix = f"{self.ref}:" if self.ref is not None else ""
        index: dict[str, set[str]] = {}
        for line in out.splitlines():
            fields = line.split("\0", 2)
            if len(fields) != 3:
                continue
            path, _, text = fields
            line_match = _IMPORT_LINE_RE.match(text)
            if line_match is None:
                continue  # "import" inside other code or text
            level, module, names = line_match.groups()
            if not level and all(is_outside(m) for m in (module or names).split(",")
                                 if m.strip()):
                continue  # the standard library, pyspark: most import lines
            path = path[len(prefix):] if prefix and path.startswith(prefix) else path
            if path not in self.exists:
                continue
            continued = text.rstrip().endswith("\\") or ("(" in text and ")" not in text)
            for level, module, names in imports_of(text):
                if level:
                    keys = [f"path:{c}" for c in candidates(path, level, module, names, ())]
                    if continued:
                        folder = candidates(path, level, module, (), ())
                        keys += [f"path:{c.rsplit('/', 1)[0]}/*" for c in folder]
                else:
                    keys = [module, *(f"{module}.{name}" for name in names)]
                    if continued:
                        keys.append(f"{module}.*")
                for key in keys:
                    index.setdefault(key, set()).add(path)
        self._runs(index)
        self._index = index
        return index

    def _runs(self, index: dict[str, set[str]]) -> None:
        """Notebooks that `%run` another file depend on it like an import (one `git grep`)."""
        args = ["git", "grep", "-z", "-I", "-l", "-F"]
        args += ["--untracked", "-e", "%run"] if self.ref is None else ["-e", "%run", self.ref]
        import subprocess

        done = subprocess.run([*args, "--", "*.py", "*.ipynb"], cwd=self.root,
                              capture_output=True, check=False)
        if done.returncode not in (0, 1):
            raise UsageError("git grep (finding the notebooks that %run a changed file): "
                             + done.stderr.decode("utf-8", "replace").strip())
        prefix = f"{self.ref}:" if self.ref is not None else ""
        paths = [p[len(prefix):] if prefix and p.startswith(prefix) else p
                 for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
        paths = [p for p in paths if p in self.exists]
        self.load(set(paths))
        for path in paths:
            for target in run_targets(path, self.texts.get(path) or ""):
                index.setdefault(f"path:{target}", set()).add(path)

    def importers(self, targets: set[str]) -> set[str]:
        """Files that import one of `targets`, directly or not (a superset: the job's own
        search roots are not known here, so an absolute import matches by its tail)."""
        index = self.index()
        found: set[str] = set()
        frontier = set(targets)
        for _ in range(MAX_LEVELS):
            files: set[str] = set()
            for target in frontier:
                keys = [f"path:{target}", f"path:{_module_folder(target)}/*"]
                for tail in _dotted_tails(target):
                    keys.append(tail)
                    keys.append(tail.rsplit(".", 1)[0] + ".*" if "." in tail else "")
                for key in keys:
                    files |= index.get(key, set())
            frontier = files - found - targets
            if not frontier:
                break
            found |= frontier
        return found


# The start of an import line: (dots, module) of `from`, or the names of `import`.
_IMPORT_LINE_RE = re.compile(r"[ \t]*(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import\b|"
                             r"import[ \t]+([\w., \t]*))")


_RUN_RE = re.compile(r"%run\s+[\"']?(\.{0,2}/?[\w./-]+)")


def run_targets(path: str, text: str) -> list[str]:
    """The files a notebook's `%run ./other` may read (relative to its folder, with or
    without an extension), as the notebook front end resolves them."""
    if "%run" not in text:
        return []
    folder = posixpath.dirname(path)
    found: list[str] = []
    for target in _RUN_RE.findall(text):
        if target.startswith("/"):
            continue  # a workspace path (/Repos/...): not in the repository
        base = posixpath.normpath(posixpath.join(folder, target))
        found += [base, base + ".py", base + ".ipynb"]
    return found


def _module_folder(path: str) -> str:
    """The package folder a module's file belongs to (what `from . import x` names)."""
    if path.endswith("/__init__.py"):
        path = path[: -len("/__init__.py")]
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _dotted_tails(path: str) -> list[str]:
    """Every dotted name that may import a file, whichever root it is found under:
    a/b/c.py is `c`, `b.c` or `a.b.c`."""
    if path.endswith("/__init__.py"):
        path = path[: -len("/__init__.py")]
    parts = path.removesuffix(".py").split("/")
    return [".".join(parts[i:]) for i in range(len(parts))]


def source_roots(root: Path, configured: tuple[str, ...] | None, config_folder: Path | None
                 ) -> tuple[str, ...]:
    """`source-roots` of the configuration (relative to its folder) as root-relative paths."""
    if configured is None or config_folder is None:
        return DEFAULT_SOURCE_ROOTS
    roots = []
    for folder in configured:
        relative = Path(os.path.relpath(config_folder / folder, root)).as_posix()
        if relative == ".":
            relative = ""
        if not relative.startswith(".."):
            roots.append(relative)
    return tuple(roots)
