"""`streamlint check` across files: queries that moved between job files, shared checkpoints.

Each changed file is diffed on its own (over the process pool); this stage then looks at all
of them together. A query that disappears from one changed file and appears in another is
paired by the same keys as within a file (`diff.match`: checkpointLocation, then queryName,
then sink), without the within-file fallback by position, and judged as one query that moved
(QY10) instead of a removed one (QY04) and a new one (QY03). And every query of a changed
file at the head is compared with the queries of every other job file at the head: two that
write one checkpoint are QY11 (or QY12 when they are one query started from two places).
Only the files whose findings change are judged again, in this process, from the records the
workers returned (nothing is parsed twice).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from streamlint.diff import Report, diff_pairs
from streamlint.diff.checkpoints import alike, distinct, shared_change
from streamlint.diff.compare import Change, Code
from streamlint.diff.match import match_queries
from streamlint.extract import decode_source, extract_text
from streamlint.model import JobFile, Query
from streamlint.model.errors import UsageError
from streamlint.model.identity import QueryKey, checkpoint_key
from streamlint.model.records import replace
from streamlint.policy.settle import settle
from streamlint.rulebook.profiles import runtime_of
from streamlint.workflow.git import run_git, show_many

if TYPE_CHECKING:
    from streamlint.policy.config import Config

# A move: (report of the old file, index of the query there, report of the new file, index).
Move = tuple[int, int, int, int]
_WORD_RE = re.compile(rb"[A-Za-z0-9]+")
# Below this many files a pool costs more to start than it saves (as in check.py).
POOL_THRESHOLD = 8


def across_files(reports: list[Report], configs: dict[str, Config],
                 others: list[JobFile]) -> list[Report]:
    """The reports with moved queries paired across files and shared checkpoints found.

    `configs` gives each changed file's configuration (by its path), `others` the job files
    at the head that did not change.
    """

    moves = find_moves(reports)
    shared = shared_checkpoints(reports, others)
    affected = sorted({m[0] for m in moves} | {m[2] for m in moves} | set(shared))
    out = list(reports)
    for ri in affected:
        report = reports[ri]
        gone = {i for a, i, _, _ in moves if a == ri}
        came = {j: reports[a].old.queries[i] for a, i, b, j in moves if b == ri}
        old = tuple(q for k, q in enumerate(report.old.queries) if k not in gone)
        new = tuple(q for k, q in enumerate(report.new.queries) if k not in came)
        pairs = (*match_queries(old, new),
                 *((came[j], report.new.queries[j]) for j in sorted(came)))
        extra = [moved(came[j], report.new.queries[j]) for j in sorted(came)]
        extra += shared.get(ri, [])
        sources = tuple(distinct([reports[a].old for a, _, b, _ in moves if b == ri]))
        rebuilt = diff_pairs(report.old, report.new, pairs, report.spark_version,
                             tuple(extra), sources, report.base_spark_version,
                             report.databricks)
        out[ri] = settle(replace(rebuilt, status=report.status,
                                 spark_source=report.spark_source,
                                 base_spark_source=report.base_spark_source),
                         configs[report.new.path])
    return out


def find_moves(reports: list[Report]) -> list[Move]:
    """Queries removed from one changed file and added in another, paired by their keys."""
    olds: list[tuple[int, int]] = []
    news: list[tuple[int, int]] = []
    for ri, report in enumerate(reports):
        for before, after in match_queries(report.old.queries, report.new.queries,
                                           positional=False):
            if after is None and before is not None:
                olds.append((ri, _index(report.old.queries, before)))
            elif before is None and after is not None:
                news.append((ri, _index(report.new.queries, after)))
    if not olds or not news:
        return []
    old_queries = tuple(reports[ri].old.queries[i] for ri, i in olds)
    new_queries = tuple(reports[ri].new.queries[j] for ri, j in news)
    where_old = {id(q): place for q, place in zip(old_queries, olds, strict=True)}
    where_new = {id(q): place for q, place in zip(new_queries, news, strict=True)}
    moves: list[Move] = []
    for before, after in match_queries(old_queries, new_queries, positional=False):
        if before is None or after is None:
            continue
        (a, i), (b, j) = where_old[id(before)], where_new[id(after)]
        if a != b:  # within one file, the file's own pairing stands
            moves.append((a, i, b, j))
    return moves


def _index(queries: tuple[Query, ...], query: Query) -> int:
    return next(k for k, q in enumerate(queries) if q is query)


def moved(old: Query, new: Query) -> Change:
    return Change("query.moved", "the query", Code(str(old.sink.loc)), Code(str(new.sink.loc)),
                  old.sink.loc, new.sink.loc, new.label,
                  {"stateful": "true" if (old.stateful or new.stateful) else "false"})


def shared_checkpoints(reports: list[Report], others: list[JobFile]
                       ) -> dict[int, list[Change]]:
    """Per changed file (report index), its queries whose checkpoint a query of another file
    at the head also writes. Two queries of one file are the diff's own business."""

    entries: dict[QueryKey, list[tuple[int | None, str, Query]]] = {}
    for ri, report in enumerate(reports):
        for query in distinct(list(report.new.queries)):
            key = checkpoint_key(query)
            if key is not None:
                entries.setdefault(key, []).append((ri, report.new.path, query))
    changed = set(entries)
    for job in others:
        for query in distinct(list(job.queries)):
            key = checkpoint_key(query)
            if key in changed:
                entries[key].append((None, job.path, query))
    changes: dict[int, list[Change]] = {}
    for group in entries.values():
        if len({path for _, path, _ in group}) < 2:
            continue
        for ri, path, query in group:
            if ri is None:
                continue
            elsewhere = [q for _, p, q in group if p != path]
            version = runtime_of(reports[ri].spark_version, reports[ri].databricks)
            changes.setdefault(ri, []).append(shared_change(
                query, elsewhere, all(alike(q, query, version) for q in elsewhere)))
    return changes


def checkpoint_words(reports: list[Report]) -> list[frozenset[bytes]]:
    """For each checkpoint the changed files write, the words any file that builds the same
    path must contain (its literal pieces hold them, whatever the code joins them with)."""
    words = []
    for report in reports:
        for query in report.new.queries:
            key = checkpoint_key(query)
            if key is not None:
                words.append(frozenset(w for w in _WORD_RE.findall(str(key.value).encode())
                                       if len(w) >= 3 and not w.isdigit()))
    return words


def might_share(data: bytes, words: list[frozenset[bytes]]) -> bool:
    """The cheap test before a file is parsed: it is a job and could write one of the paths."""
    if b"writeStream" not in data:
        return False
    present = set(_WORD_RE.findall(data))
    return any(needed <= present for needed in words)


def other_jobs(root: Path, head: str | None, reports: list[Report], skip: set[str],
               wanted: Callable[[str], bool]) -> list[JobFile]:
    """The job files at the head, other than the changed ones, that might share a checkpoint
    with them (read with git at a ref, from disk for the working tree), extracted."""

    words = checkpoint_words(reports)
    if not words:
        return []
    paths = [p for p in _mentioning_write_stream(root, head) if p not in skip and wanted(p)]
    if head is not None:
        blobs = show_many(root, head, paths)
    else:
        blobs = {}
        for path in paths:
            try:
                blobs[path] = (root / path).read_bytes()
            except OSError:
                continue
    candidates = [(path, data) for path, data in blobs.items() if might_share(data, words)]
    return extract_many(candidates)


def _mentioning_write_stream(root: Path, head: str | None) -> list[str]:
    """The Python files at the head that mention writeStream (git grep: no blob read here)."""

    where = [head] if head is not None else ["--untracked"]
    try:
        out = run_git(root, "grep", "-l", "-z", "-F", "-I", "-e", "writeStream", *where,
                      "--", "*.py")
    except UsageError:  # git grep exits 1 when nothing matches
        return []
    prefix = f"{head}:" if head is not None else ""
    return [p[len(prefix):] if p.startswith(prefix) else p
            for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p]


def _extract(item: tuple[str, bytes]) -> JobFile | None:

    path, data = item
    try:
        return extract_text(decode_source(data, path), path)
    except Exception:  # noqa: BLE001 - a file this change did not touch is not its error
        return None


def extract_many(items: list[tuple[str, bytes]]) -> list[JobFile]:
    import os

    workers = min(len(items), os.cpu_count() or 1)
    if len(items) < POOL_THRESHOLD or workers < 2:
        results = [_extract(item) for item in items]
    else:
        import multiprocessing
        import sys
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork" if sys.platform == "linux" else None)
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            results = list(pool.map(_extract, items, chunksize=4))
    return [job for job in results if job is not None]
