"""The Spark a job is judged for, and where that came from.

In this order: `--spark-version`; `spark-version` in [tool.streamlint] (a per-path override
first); what the project declares (`target.declared`: a pin, a lock file, a job's cluster
spec); else the latest stable release (`rules/runtimes.toml`). Every report says which
profile it used and why (`Report.spark_source`), so that a verdict for Spark 3.5 is never
read as one for the cluster's 4.3.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from streamlint.extract.bundles import Clusters
from streamlint.model.errors import UsageError
from streamlint.model.records import record
from streamlint.rulebook.profiles import (
    Profile,
    databricks_profile,
    declared_profile,
    known_text,
    latest,
    parse_profile,
)
from streamlint.workflow.declared import Declaration, declared, is_declaration_file
from streamlint.workflow.git import show_many, tree_files

DEFAULT_SOURCE = ("the latest stable release: no --spark-version, spark-version in "
                  "[tool.streamlint] or pyspark pin names another")
# A declaration file larger than this is not read (a lock file is some hundred kB).
_MAX_BYTES = 4_000_000


@record
class Target:
    """The profile the rules judge for, and where it came from, in the user's words."""

    profile: Profile
    source: str

    @property
    def version(self) -> str:
        return self.profile.spark


def resolve(flag: str | None, configured: str | None, config_path: str | None,
            job: str | None, files: Mapping[str, str] | None) -> Target:
    """The target for one job file: `flag` from the command line, `configured` the
    configuration's `spark-version` for the file (read from `config_path`); `job` and `files`
    (the project's declaration files by path, `project_files` or `git_files`) are looked at
    only when neither names a version."""
    if flag:
        return Target(parse_profile(flag), f"--spark-version {flag}")
    if configured:
        where = shown_path(config_path) if config_path else "the configuration"
        return Target(parse_profile(configured, f"{where}: `spark-version`"),
                      f"spark-version in {where}")
    found = declared(job, files) if job is not None and files else None
    if found is not None:
        return _declared(found)
    return Target(Profile(latest()), DEFAULT_SOURCE)


def with_bundle(target: Target, bundle: Clusters | None) -> Target:
    """The target, or where nothing named a version (neither the command line, the
    configuration nor a pin), the Databricks runtime of the clusters a Databricks bundle runs
    the job on, else their Spark (`extract/bundles.spark_version`)."""
    if bundle is None or target.source != DEFAULT_SOURCE:
        return target
    if bundle.runtime:
        with contextlib.suppress(UsageError):  # a runtime without a profile: by its Spark
            return Target(parse_profile(bundle.runtime), bundle.where)
    judged = declared_profile(bundle.spark)
    if judged is None:
        return target
    profile, note = judged
    return Target(profile, f"{bundle.where}{note}")



def _declared(found: Declaration) -> Target:
    where = f"{found.written} in {shown_path(found.path)}"
    if found.runtime:
        major, _, minor = found.runtime.partition(".")
        profile = databricks_profile(major, minor or None)
        if profile is None:
            raise UsageError(f"{where}: Databricks Runtime {found.runtime} has no profile; "
                             f"{known_text()}; set spark-version in [tool.streamlint] or "
                             "pass --spark-version")
        return Target(profile, f"{where}: Databricks Runtime {profile.databricks}")
    judged = declared_profile(found.spark)
    if judged is None:
        raise UsageError(f"{where}: Spark {found.spark} has no profile; {known_text()}; set "
                         "spark-version in [tool.streamlint] or pass --spark-version")
    profile, note = judged
    return Target(profile, where + note)


def shown_path(path: str) -> str:
    """A path as the report shows it: relative to the working directory when under it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def project_files(job: str) -> tuple[str, dict[str, str]]:
    """`job` as an absolute `/`-path, and the declaration files on disk from its folder up to
    its repository's root (the folder with `.git`), or to the file system's root."""
    start = Path(job).resolve()
    files: dict[str, str] = {}
    for folder in start.parents:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        for name in names:
            path = folder / name
            if is_declaration_file(name) and path.is_file():
                text = _read(path)
                if text is not None:
                    files[path.as_posix()] = text
        if ".git" in names:
            break
    return start.as_posix(), files


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def git_files(root: Path, ref: str | None) -> dict[str, str]:
    """The declaration files of a repository at `ref` (the working tree when None), by
    repository path."""

    paths = [p for p in tree_files(root, ref) if is_declaration_file(p)]
    if ref is not None:
        return {p: data.decode("utf-8", "replace") for p, data in
                show_many(root, ref, paths).items() if len(data) <= _MAX_BYTES}
    return {p: text for p in paths if (text := _read(root / p)) is not None}
