"""`streamlint check`: every streaming job changed between two git refs, one verdict.

Discovery asks git what changed (renames followed), keeps the files the configuration
includes, reads old versions with `git cat-file` (nothing checked out), drops files that
mention neither `readStream` nor `writeStream` on either side without parsing them, and
diffs the rest over a process pool. Each report then passes through the configuration
(select, ignore, severity) and the file's `# streamlint: ignore[...]` comments.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from streamlint.diff import Report
from streamlint.diff.changes import changed_modules
from streamlint.extract import decode_source, mentions_streaming
from streamlint.extract.bundles import Clusters
from streamlint.extract.project import MappingFiles
from streamlint.model.errors import FileError, InputError, UsageError
from streamlint.model.records import record, replace
from streamlint.policy.accept import FILE, Acceptance, in_effect, leftovers, parse
from streamlint.policy.config import Config, load_config, matches
from streamlint.rulebook.matrix import worst
from streamlint.rulebook.profiles import parse_profile
from streamlint.workflow.crossfile import across_files as link
from streamlint.workflow.crossfile import other_jobs
from streamlint.workflow.git import (
    Change,
    changed_files,
    repo_root,
    show_many,
    tree_files,
    verify_ref,
)
from streamlint.workflow.graph import Graph
from streamlint.workflow.modules import Side, is_config, source_roots
from streamlint.workflow.pool import Pair, run_pairs
from streamlint.workflow.target import DEFAULT_SOURCE, Target, git_files, resolve, with_bundle


@record
class Outcome:
    """A multi-file result: the reports of changed jobs, the files that could not be read."""

    reports: tuple[Report, ...]
    errors: tuple[FileError, ...]
    verdict: str
    warnings: tuple[str, ...] = ()


def _relative(root: Path, config: Config, path: str) -> str:
    """A repository path as the configuration's globs see it (relative to its folder)."""
    if config.root is None:
        return path
    try:
        return os.path.relpath(root / path, config.root)
    except ValueError:  # another drive on Windows
        return path


def _under(path: str, prefixes: list[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") or p in ("", ".")
               for p in prefixes)


def collect(root: Path, base: str, head: str | None, paths: list[str] | None,
            config: Config, spark_version: str | None) -> tuple[list[Pair], list[FileError]]:
    """The pairs worth diffing, and the errors met while reading them."""
    verify_ref(root, base)
    if head is not None:
        verify_ref(root, head)
    changes = changed_files(root, base, head)
    # Before the filters: a changed module outside `include` or the paths given still
    # changes the jobs that import it.
    changed_modules = {p for c in changes for p in (c.old_path, c.new_path)
                       if p is not None and p.endswith(".py")}
    changed_configs = {p for c in changes for p in (c.old_path, c.new_path)
                       if p is not None and is_config(p)}
    if paths is not None:
        changes = [c for c in changes
                   if _under(c.new_path or "", paths) or _under(c.old_path or "", paths)]
    changes = [c for c in changes
               if config.wants_file(_relative(root, config, c.new_path or c.old_path or ""))]
    graph = Graph(root, base, head, changed_modules,
                  source_roots(root, config.source_roots, config.root), changed_configs)
    old_blobs = show_many(root, base, [c.old_path for c in changes if c.old_path])
    new_blobs = (show_many(root, head, [c.new_path for c in changes if c.new_path])
                 if head is not None else {})
    pairs: list[Pair] = []
    errors: list[FileError] = []
    targets = Targets(root, head, spark_version, graph.spark_version, base)
    for change in changes:
        old_data = old_blobs.get(change.old_path) if change.old_path else None
        data = _new_data(root, head, change, new_blobs)
        texts = _texts(base, change, old_data, data)
        if isinstance(texts, FileError):
            errors.append(texts)
        elif texts is not None:
            path = change.new_path or change.old_path or ""
            path_config = config.for_path(_relative(root, config, path))
            target = targets.of(path, path_config)
            pinned = targets.base_of(change.old_path or path, path_config, target)
            pairs.append(Pair(
                status=change.status, path=path,
                old_path=f"{base}:{change.old_path}" if change.old_path else None,
                new_path=change.new_path, old_text=texts[0], new_text=texts[1],
                spark_version=target.version, spark_source=target.source,
                databricks=target.profile.databricks, config=path_config,
                old_job=change.old_path, source_roots=graph.roots,
                **pinned,
            ))
    pairs = _with_modules(pairs, graph)
    helped = _rejudged("helper-changed", graph.affected(_done(pairs)), root, base, paths,
                       config, targets, graph)
    configured = _rejudged("config-changed", graph.config_affected(_done(pairs + helped)),
                           root, base, paths, config, targets, graph)
    return pairs + _with_modules(helped + configured, graph), errors


class Targets:
    """The Spark each job is judged for (`streamlint.workflow.target`), the project's declaration
    files read from the head (or the working tree) once, and only if some job needs them."""

    def __init__(self, root: Path, head: str | None, flag: str | None,
                 bundle: Callable[[str], Clusters | None], base: str = "") -> None:
        self.root, self.head, self.flag, self.bundle = root, head, flag, bundle
        self.base = base
        self._files: dict[str, str] | None = None
        self._base_files: dict[str, str] | None = None

    def of(self, path: str, config: Config) -> Target:
        if self.flag or config.spark_version:
            return resolve(self.flag, config.spark_version, config.path, path, None)
        if self._files is None:
            self._files = git_files(self.root, self.head)
        # Nothing names a version: the clusters of the head's Databricks bundle may.
        return with_bundle(resolve(None, None, None, path, self._files), self.bundle(path))

    def base_of(self, path: str, config: Config, head: Target) -> dict[str, str]:
        """The Spark the base's own declaration files pin for the job, where it differs from
        the head's (an upgrade or a downgrade), as Pair fields; nothing when a flag or the
        configuration names the version (it holds for both) or the base pins none."""
        if self.flag or config.spark_version or not self.base:
            return {}
        if self._base_files is None:
            self._base_files = git_files(self.root, self.base)
        try:
            pinned = resolve(None, None, None, path, self._base_files)
        except UsageError:  # the base pinned a version without a profile: not this change's
            return {}
        if pinned.source == DEFAULT_SOURCE or pinned.version == head.version:
            return {}
        return {"base_spark_version": pinned.version, "base_spark_source": pinned.source}


def _new_data(root: Path, head: str | None, change: Change,
              new_blobs: dict[str, bytes]) -> bytes | None:
    """The new version's bytes: from `head`, or from the work tree when there is none."""
    if not change.new_path:
        return None
    if head is not None:
        return new_blobs.get(change.new_path)
    try:
        return (root / change.new_path).read_bytes()
    except OSError:
        return None  # a broken symlink, a path that is not a file


def _texts(base: str, change: Change, old_data: bytes | None, data: bytes | None
           ) -> tuple[str | None, str | None] | FileError | None:
    """Both versions decoded, why they could not be, or None for a file that is no job."""
    # Before decoding: a big generated module that is no job (a *_pb2.py) must not fail
    # the check on its size or encoding. Bytes suffice: PEP 263 encodings keep ASCII.
    # A file that imports the repository's modules may build its queries with them.
    streaming = any(d is not None and (b"readStream" in d or b"writeStream" in d)
                    for d in (old_data, data))
    if not streaming and not any(d is not None and b"import" in d
                                 for d in (old_data, data)):
        return None
    try:
        old_text = (decode_source(old_data, f"{base}:{change.old_path}")
                    if old_data is not None else None)
        new_text = (decode_source(data, change.new_path)
                    if data is not None and change.new_path else None)
    except InputError as err:
        # else no job: a module nothing could follow either
        return FileError.of(err) if streaming else None
    if old_text is None and new_text is None:
        return None
    return old_text, new_text


def _rejudged(status: str, affected: dict[str, list[str]], root: Path, base: str,
              paths: list[str] | None, config: Config, targets: Targets,
              graph: Graph) -> list[Pair]:
    """Unchanged jobs judged again, each side with its own ref's files: those whose imported
    module changed ("helper-changed"), or that read a changed configuration file
    ("config-changed"); `affected` maps each to the changed files it reaches. Paths given
    (the staged files, for the pre-commit hook) select it through the job or those files."""
    again: list[Pair] = []
    for path, files in affected.items():
        if (paths is not None and not any(_under(p, paths) for p in (path, *files))) or \
                not config.wants_file(_relative(root, config, path)):
            continue
        path_config = config.for_path(_relative(root, config, path))
        target = targets.of(path, path_config)
        again.append(Pair(
            status=status, path=path, old_path=f"{base}:{path}", new_path=path,
            old_text=graph.base.texts[path], new_text=graph.head.texts[path],
            spark_version=target.version, spark_source=target.source, config=path_config,
            databricks=target.profile.databricks, old_job=path, source_roots=graph.roots,
            **targets.base_of(path, path_config, target)))
    return again


def _done(pairs: list[Pair]) -> set[str]:
    return {p.path for p in pairs} | {p.old_job for p in pairs if p.old_job}


def _with_modules(pairs: list[Pair], graph: Graph) -> list[Pair]:
    """Each pair with the texts of the modules each version may import, read from its own
    ref; a file that mentions no streaming is kept only if a module it imports does."""
    if not pairs:
        return pairs
    old_files, new_files = graph.files(
        {p.old_job: p.old_text for p in pairs if p.old_job and p.old_text is not None},
        {p.path: p.new_text for p in pairs if p.new_path and p.new_text is not None})
    kept = []
    for pair in pairs:
        old = old_files.get(pair.old_job) if pair.old_text is not None and pair.old_job else None
        new = new_files.get(pair.path) if pair.new_text is not None and pair.new_path else None
        # The cheap pre-filter: most Python files in a repository are not streaming jobs.
        texts = [pair.old_text, pair.new_text, *(t for files in (old, new) if files
                                                 for t in files.texts.values())]
        if any(t is not None and mentions_streaming(t) for t in texts):
            kept.append(replace(pair, old_files=old, new_files=new,
                                old_counterparts=_counterparts(graph.base, old, new),
                                new_counterparts=_counterparts(graph.head, new, old)))
    return kept


def _counterparts(side: Side, files: MappingFiles | None, other: MappingFiles | None
                  ) -> MappingFiles | None:
    """`files`, with what this ref has at the module paths only `other` holds (read for
    placing findings, `workflow/counterparts.py`); None where nothing is to be added."""
    if files is None or other is None:
        return None
    missing = {path for path in other.texts if path not in files.texts and path.endswith(".py")}
    if not missing:
        return None
    side.load(missing)
    return MappingFiles({**{path: side.texts[path] for path in missing
                            if side.texts.get(path) is not None}, **files.texts})


def _in_some_ref(root: Path, path: str, refs: tuple[str | None, ...]) -> bool:
    """Whether a path (a deleted job, say) exists at one of the refs."""
    import subprocess

    for ref in refs:
        if ref is None:
            continue
        done = subprocess.run(["git", "cat-file", "-e", f"{ref}:{path}"], cwd=root,
                              capture_output=True, check=False)
        if done.returncode == 0:
            return True
    return False


def check(base: str, head: str | None = None, paths: Iterable[str] | None = None,
          spark_version: str | None = None, cwd: Path | None = None,
          progress: bool = False) -> Outcome:
    cwd = (cwd or Path.cwd()).resolve()
    if spark_version:
        parse_profile(spark_version)  # refused before any work, even with nothing changed
    root = repo_root(cwd)
    config = load_config(cwd)
    relative: list[str] | None = None
    if paths is not None:
        for ref in (base, head):
            if ref is not None:
                verify_ref(root, ref)  # a bad ref is the error to report, not the paths
        relative = []
        for path in paths:
            absolute = (cwd / path).resolve()
            try:
                relative.append(absolute.relative_to(root.resolve()).as_posix())
            except ValueError:
                raise UsageError(f"{path}: not inside the repository at {root}") from None
            if not absolute.exists() and not _in_some_ref(root, relative[-1], (base, head)):
                # A mistyped path would otherwise check nothing and pass.
                raise UsageError(f"{path}: no such file or folder (in the working tree, at "
                                 f"{base}{f' or {head}' if head else ''})")
    pairs, errors = collect(root, base, head, relative, config, spark_version)
    accepted = acceptances(root, base, head)
    pairs = [replace(pair, accepted=accepted) for pair in pairs]
    reports: list[Report] = []
    configs: dict[str, Config] = {}
    for pair, result in zip(pairs, run_pairs(pairs, progress), strict=True):
        if isinstance(result, FileError):
            errors.append(result)
        elif result.status == "config-changed" and not result.findings and \
                not changed_modules(result.old, result.new):
            continue  # it named a file of the kind, but read none that changed
        else:
            reports.append(result)
            configs[result.new.path] = pair.config
    reports = across_files(root, head, config, reports, configs, errors)

    return Outcome(tuple(reports), tuple(errors), worst([r.verdict for r in reports]),
                   unmatched_includes(root, config, (base, head))
                   + tuple(leftovers(accepted, reports)))


def acceptances(root: Path, base: str, head: str | None) -> tuple[Acceptance, ...]:
    """The head's .streamlint-accept.toml, entries the base has marked inherited."""

    if head is None:
        path = root / FILE
        head_text = path.read_text(encoding="utf-8") if path.is_file() else None
    else:
        blob = show_many(root, head, [FILE]).get(FILE)
        head_text = blob.decode("utf-8", "replace") if blob is not None else None
    if head_text is None:
        return ()
    base_blob = show_many(root, base, [FILE]).get(FILE)
    base_entries = parse(base_blob.decode("utf-8", "replace"), f"{base}:{FILE}") \
        if base_blob is not None else ()
    return in_effect(parse(head_text, FILE), base_entries)


def across_files(root: Path, head: str | None, config: Config, reports: list[Report],
                 configs: dict[str, Config], errors: list[FileError]) -> list[Report]:
    """Queries that moved between changed files, checkpoints shared with other job files."""

    skip = {r.new.path for r in reports} | {e.path for e in errors}
    others = other_jobs(root, head, reports, skip,
                        lambda path: config.wants_file(_relative(root, config, path)))
    return link(reports, configs, others)


def unmatched_includes(root: Path, config: Config, refs: tuple[str | None, ...]
                       ) -> tuple[str, ...]:
    """A warning per `include` glob that matches no file at either ref: a typo there would
    otherwise check nothing and pass, change after change."""
    if config.include == Config().include:
        return ()
    files = {_relative(root, config, path) for ref in refs for path in tree_files(root, ref)}
    return tuple(
        f"{config.path}: include pattern {pattern!r} matches no file in the repository "
        "(nothing under it is checked)"
        for pattern in config.include if not any(matches(path, (pattern,)) for path in files))

