"""Diffing the pairs `check` collected: one job's two versions with the modules each
imports, in a pool of worker processes once there are enough of them, with a progress line
on a terminal."""

from __future__ import annotations

import gc
import itertools
import os
import sys

from streamlint.diff import Report, diff_jobs
from streamlint.extract import extract_text, extract_version, preload
from streamlint.extract.project import DEFAULT_SOURCE_ROOTS, MappingFiles, Project
from streamlint.model import JobFile
from streamlint.model.errors import FileError, InputError
from streamlint.model.records import record, replace
from streamlint.policy.accept import Acceptance
from streamlint.policy.config import Config
from streamlint.policy.settle import settle
from streamlint.rulebook.book import load_rules
from streamlint.workflow.counterparts import with_counterparts

# Below this many files a pool costs more to start than it saves.
POOL_THRESHOLD = 8


@record
class Pair:
    """One changed file, both versions as text, ready to be diffed in any process."""

    status: str
    path: str  # in the repository: the new path, or the old one for a deleted file
    old_path: str | None  # shown as REF:path
    new_path: str | None
    old_text: str | None
    new_text: str | None
    spark_version: str
    config: Config
    spark_source: str = ""  # where spark_version came from (`streamlint.workflow.target`)
    databricks: str = ""  # the Databricks runtime that runs spark_version, if one was named
    # The Spark the base pins where it differs from the head's, and where it was read.
    base_spark_version: str = ""
    base_spark_source: str = ""
    # The repository's modules each version may import (read from git beforehand, so the
    # worker pool never runs git), and where packages start.
    old_job: str | None = None  # the old version's root-relative path
    old_files: MappingFiles | None = None
    new_files: MappingFiles | None = None
    # Each ref's files at the module paths only the other version may import (a job moved
    # into a module that existed before): read for placing findings, never followed.
    old_counterparts: MappingFiles | None = None
    new_counterparts: MappingFiles | None = None
    source_roots: tuple[str, ...] = DEFAULT_SOURCE_ROOTS
    accepted: tuple[Acceptance, ...] = ()  # .streamlint-accept.toml, base entries marked


_DIFFED = itertools.count(1)


def diff_pair(pair: Pair) -> Report | FileError:
    """A changed file's settled report, or why it could not be read. With the cycle
    collector off for the command (cli.py), one pass every 25 files keeps a large check's
    memory flat (review: about 0.25 MB a file was left uncollected)."""
    try:
        return _diff_pair(pair)
    finally:
        if not gc.isenabled() and next(_DIFFED) % 25 == 0:
            gc.collect()


def _diff_pair(pair: Pair) -> Report | FileError:
    try:
        old_project = new_project = None
        if pair.old_files is not None:
            old_project = Project(pair.old_files, pair.old_job or pair.path, pair.source_roots)
        if pair.new_files is not None:
            new_project = Project(pair.new_files, pair.path, pair.source_roots)
        # A version Python cannot parse is judged against the other one, where both exist.
        read = extract_version if None not in (pair.old_text, pair.new_text) else extract_text
        old = (read(pair.old_text, pair.old_path or pair.path, old_project)
               if pair.old_text is not None else JobFile(pair.path, "", ()))
        new = (read(pair.new_text, pair.path, new_project) if pair.new_text is not None
               else JobFile(pair.path, "", ()))
        old, new = with_counterparts(old, new, pair.old_counterparts or pair.old_files,
                                     pair.old_job or pair.path,
                                     pair.new_counterparts or pair.new_files, pair.path)
        report = diff_jobs(old, new, pair.spark_version, pair.base_spark_version,
                           pair.databricks)
    except InputError as err:
        return FileError.of(err)
    except Exception as err:  # noqa: BLE001 - a bug on one file must not hide the others
        return FileError(pair.path, 1, 0, f"streamlint failed on this file "
                         f"({type(err).__name__}: {err}); please report it")
    return settle(replace(report, status=pair.status, spark_source=pair.spark_source,
                          base_spark_source=pair.base_spark_source if
                          report.base_spark_version else ""), pair.config, pair.accepted)


def run_pairs(pairs: list[Pair], progress: bool) -> list[Report | FileError]:
    """Diff every pair, over processes when there are enough to pay for them."""
    workers = min(len(pairs), os.cpu_count() or 1)
    if len(pairs) < POOL_THRESHOLD or workers < 2:
        results = []
        for n, pair in enumerate(pairs, 1):
            results.append(diff_pair(pair))
            if progress:
                _progress(n, len(pairs))
        return results
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: workers start with streamlint and libcst already imported (Linux, macOS can't).
    method = "fork" if sys.platform == "linux" else None
    if method == "fork":
        _load_before_fork(any(p.path.lower().endswith(".ipynb") for p in pairs))
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        results = []
        for n, result in enumerate(pool.map(diff_pair, pairs, chunksize=4), 1):
            results.append(result)
            if progress:
                _progress(n, len(pairs))
    return results


def _load_before_fork(notebooks: bool = False) -> None:
    """Import the extractor and read the rules once, in the parent, rather than once per worker
    (about a tenth of a second each for the parser, more for notebooks)."""

    preload(notebooks)
    load_rules()


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\rstreamlint: [{'#' * filled}{' ' * (width - filled)}] "
                     f"{done}/{total} jobs")
    if done == total:
        sys.stderr.write("\r" + " " * (width + 40) + "\r")
    sys.stderr.flush()


def show_progress() -> bool:
    """A progress bar only for a person at a terminal: never piped, never in CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")
