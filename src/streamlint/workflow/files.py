"""From files on disk to a report: each job file read with its own repository's modules,
then diffed. The diff itself (`streamlint.diff`) reads only model records; reading files is
this module's business, as git refs are `check`'s."""

from __future__ import annotations

from pathlib import Path

from streamlint.diff import Report, diff_jobs
from streamlint.extract import extract_file
from streamlint.extract.project import on_disk, project_root
from streamlint.rulebook.matrix import DEFAULT_SPARK_VERSION
from streamlint.workflow.counterparts import with_counterparts
from streamlint.workflow.modules import source_roots as relative_roots


def diff_files(old_path: str, new_path: str, spark_version: str = DEFAULT_SPARK_VERSION,
               source_roots: tuple[str, ...] | None = None, config_folder: str | None = None,
               databricks: str = "") -> Report:
    """Two job files on disk; each follows its own repository's modules. `source_roots`
    (relative to `config_folder`) says where packages start, as `source-roots` in config."""
    roots = relative_roots(project_root(new_path), source_roots,
                           Path(config_folder) if config_folder else None)
    old_project, new_project = on_disk(old_path, roots), on_disk(new_path, roots)
    old, new = with_counterparts(extract_file(old_path, old_project, version=True),
                                 extract_file(new_path, new_project, version=True),
                                 old_project.files, old_project.job,
                                 new_project.files, new_project.job)
    return diff_jobs(old, new, spark_version, databricks=databricks)
