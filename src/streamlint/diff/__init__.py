"""Judge a job change: match queries, compare shapes, give each change its rule's verdict."""

from __future__ import annotations

from streamlint.diff import pipelines
from streamlint.diff.compare import (
    Change,
    changed_modules,
    compare_queries,
    query_added,
    query_removed,
    unseen_changes,
)
from streamlint.model import JobFile, Query
from streamlint.records import record, replace

DEFAULT_SPARK_VERSION = "3.5"  # the rules' default; streamlint.rules re-exports it


@record
class Report:
    """Everything a formatter needs: both files, the query pairs, the findings."""

    old: JobFile
    new: JobFile
    pairs: tuple[tuple[Query | None, Query | None], ...]
    findings: tuple  # tuple[Finding, ...]
    verdict: str
    spark_version: str
    # In git mode: how the file changed ("modified", "renamed", "added", "deleted"), and the
    # findings that `# streamlint: ignore[CODE] reason` comments silenced.
    status: str = "modified"
    suppressed: tuple = ()  # tuple[Finding, ...]
    # Other job files the findings point into: where a query moved from (git mode).
    others: tuple[JobFile, ...] = ()


def diff_jobs(old: JobFile, new: JobFile, spark_version: str = DEFAULT_SPARK_VERSION) -> Report:
    return diff_pairs(old, new, tuple(pipelines.match(old.queries, new.queries)), spark_version)


def diff_pairs(old: JobFile, new: JobFile, pairs: tuple[tuple[Query | None, Query | None], ...],
               spark_version: str = DEFAULT_SPARK_VERSION, extra: tuple[Change, ...] = (),
               others: tuple[JobFile, ...] = ()) -> Report:
    """Judge given query pairs (git mode pairs queries across files too) and `extra` changes
    found elsewhere, with what every new version is checked for: its checkpoints."""
    from streamlint.diff.checkpoints import checkpoint_key, shared_in_file, volatile_changes
    from streamlint.rules import judge, parse_version, worst

    version = parse_version(spark_version)
    changes = unseen_changes(old, new)
    changes.extend(pipelines.flow_changes(pairs, old, new))
    shared = [*extra, *shared_in_file(new.queries, version)]
    # A new query on a checkpoint another query writes does not start from its sources'
    # startingOffsets: it resumes (or fights over) that checkpoint, which QY11/QY12 say.
    taken = {str(c.new) for c in shared if c.kind == "query.shared_checkpoint"}
    helpers = changed_modules(old, new)
    for before, after in pairs:
        if pipelines.is_flow(before) or pipelines.is_flow(after):
            continue  # judged above, by the flow's identity
        if before is not None and after is not None:
            changes.extend(compare_queries(before, after, helpers))
        elif after is not None and checkpoint_key(after) not in taken:
            changes.append(query_added(after))
        elif before is not None:
            changes.append(query_removed(before))
    changes.extend(shared)
    changes.extend(volatile_changes(new.queries))
    findings = _merge_repeats([judge(change, version) for change in changes])
    return Report(old, new, pairs, findings, worst([f.verdict for f in findings]), spark_version,
                  others=others)


def _merge_repeats(findings: list) -> tuple:
    """One finding for a session setting shared by every query in the file, not one each."""
    merged: dict[tuple, object] = {}
    for finding in findings:
        key = (finding.code, finding.message, finding.old, finding.new)
        if key in merged:
            first = merged[key]
            merged[key] = replace(first, query=f"{first.query}, {finding.query}")
        else:
            merged[key] = finding
    return tuple(merged.values())


def diff_files(old_path: str, new_path: str, spark_version: str = DEFAULT_SPARK_VERSION,
               source_roots: tuple[str, ...] | None = None, config_folder: str | None = None
               ) -> Report:
    """Two job files on disk; each follows its own repository's modules. `source_roots`
    (relative to `config_folder`) says where packages start, as `source-roots` in config."""
    from pathlib import Path

    from streamlint.check_modules import source_roots as relative_roots
    from streamlint.extract import extract_file
    from streamlint.extract.project import on_disk, project_root

    roots = relative_roots(project_root(new_path), source_roots,
                           Path(config_folder) if config_folder else None)
    return diff_jobs(extract_file(old_path, on_disk(old_path, roots)),
                     extract_file(new_path, on_disk(new_path, roots)), spark_version)
