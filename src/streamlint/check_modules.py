"""`check` across modules: which jobs import which of the repository's modules, at each ref.

A job's queries may be built by helpers it imports (`from jobs.io import build_writer`), so
a changed helper under an unchanged job changes the job. For each side (the base ref, and
the head ref or the working tree) this reads every Python file once (one `git cat-file`
process), finds its imports by their text (`modules.imports_of`, no parsing), and follows
them from each job the way the extractor will (`modules.candidates`, with the job's own
search roots). Each job then gets the texts of exactly the modules it may read, as picklable
`MappingFiles`, so the worker pool never touches git.
"""

from __future__ import annotations

from pathlib import Path

from streamlint.errors import InputError
from streamlint.extract import decode_source, mentions_streaming
from streamlint.extract.imports import MAX_MODULES, candidates, imports_of, search_roots
from streamlint.extract.project import DEFAULT_SOURCE_ROOTS, MappingFiles
from streamlint.git import show_many, tree_files


class Side:
    """The repository's Python files at one ref (None: the working tree), read once."""

    def __init__(self, root: Path, ref: str | None, texts: dict[str, str] | None = None
                 ) -> None:
        self.root, self.ref = root, ref
        if texts is None:
            paths = [p for p in tree_files(root, ref) if p.endswith(".py")]
            texts = _read_all(root, ref, paths)
        self.texts = texts
        self._imports: dict[str, list[tuple[int, str, tuple[str, ...]]]] = {}

    def imports(self, path: str) -> list[tuple[int, str, tuple[str, ...]]]:
        found = self._imports.get(path)
        if found is None:
            found = self._imports[path] = imports_of(self.texts.get(path, ""))
        return found

    def reach(self, job: str, source_roots: tuple[str, ...], text: str | None = None
              ) -> dict[str, str]:
        """The modules a job may read (path -> text): what the extractor can follow."""
        roots = search_roots(job, source_roots)
        seen: dict[str, str] = {}
        pending = [job]
        first = True
        while pending and len(seen) < MAX_MODULES:
            path = pending.pop()
            statements = imports_of(text) if first and text is not None else self.imports(path)
            first = False
            for level, module, names in statements:
                for candidate in candidates(path, level, module, names, roots):
                    if candidate not in seen and candidate != job and candidate in self.texts:
                        seen[candidate] = self.texts[candidate]
                        pending.append(candidate)
        return seen

    def files(self, job: str, source_roots: tuple[str, ...], text: str | None = None
              ) -> MappingFiles:
        return MappingFiles(self.reach(job, source_roots, text))


def _read_all(root: Path, ref: str | None, paths: list[str]) -> dict[str, str]:
    if ref is None:
        blobs: dict[str, bytes] = {}
        for path in paths:
            try:
                blobs[path] = (root / path).read_bytes()
            except OSError:
                continue
    else:
        blobs = show_many(root, ref, paths)
    texts: dict[str, str] = {}
    for path, data in blobs.items():
        try:
            texts[path] = decode_source(data, path)
        except InputError:
            continue  # not readable as Python source: a module nothing can follow
    return texts


def affected_jobs(base: Side, head: Side, changed: set[str], source_roots: tuple[str, ...]
                  ) -> dict[str, list[str]]:
    """Jobs (present at both refs) that import a changed module, directly or not, at either
    ref: job -> the changed modules it reaches."""
    affected: dict[str, list[str]] = {}
    for path in sorted(set(base.texts) & set(head.texts)):
        if path in changed:
            continue
        reached = set(base.reach(path, source_roots)) | set(head.reach(path, source_roots))
        hit = sorted(reached & changed)
        if hit and (mentions_streaming(base.texts[path]) or mentions_streaming(head.texts[path])
                    or any(mentions_streaming(side.texts[m]) for m in reached
                           for side in (base, head) if m in side.texts)):
            affected[path] = hit
    return affected


class Graph:
    """Both sides of a check, read only when a job needs them."""

    def __init__(self, root: Path, base: str, head: str | None, changed: set[str],
                 roots: tuple[str, ...]) -> None:
        self.root, self.base_ref, self.head_ref = root, base, head
        self.changed = changed
        self.roots = roots
        self._base: Side | None = None
        self._head: Side | None = None

    @property
    def base(self) -> Side:
        if self._base is None:
            self._base = Side(self.root, self.base_ref)
        return self._base

    @property
    def head(self) -> Side:
        if self._head is None:
            self._head = Side(self.root, self.head_ref)
        return self._head

    def old_files(self, path: str | None, text: str | None) -> MappingFiles | None:
        return None if path is None or text is None else self.base.files(path, self.roots, text)

    def new_files(self, path: str | None, text: str | None) -> MappingFiles | None:
        return None if path is None or text is None else self.head.files(path, self.roots, text)

    def builds_streaming(self, old_path: str | None, new_path: str | None) -> bool:
        """Whether a file that never mentions streaming imports a module that does."""
        return any(path is not None and path in side.texts and any(
            mentions_streaming(text) for text in side.reach(path, self.roots).values())
            for side, path in ((self.base, old_path), (self.head, new_path)))

    def affected(self, done: set[str]) -> dict[str, list[str]]:
        """Jobs not changed themselves that import a changed module (job -> modules)."""
        if not self.changed:
            return {}
        return {path: modules for path, modules in affected_jobs(
            self.base, self.head, self.changed, self.roots).items() if path not in done}


def source_roots(root: Path, configured: tuple[str, ...] | None, config_folder: Path | None
                 ) -> tuple[str, ...]:
    """`source-roots` of the configuration (relative to its folder) as root-relative paths."""
    import os

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
