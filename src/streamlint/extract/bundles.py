"""Databricks Asset Bundles: the parameters and the runtime a bundle runs a job file with.

A repository deployed as a bundle says in `databricks.yml` (and the resource files its
`include:` globs name) which job task or pipeline runs each file, and with what: a notebook
task's `base_parameters` and the job's `parameters` are the notebook's widgets, a Python
file task's `parameters` its command line, a cluster's `spark_conf` and a pipeline's
`configuration` what `spark.conf.get` reads, and the cluster's `spark_version` the
Databricks runtime. A value the bundle sets wins over the default the code gives
(`dbutils.widgets.text(name, default)`), and a change to it is a change like one in the
code.

Paths are relative to the YAML file that writes them; a notebook path may leave out its
`.py` / `.ipynb`; `${workspace.file_path}` is the bundle's own folder. `${var.x}` takes the
variable's default, or the target's value for it. Every target is read: a value that differs
between targets, or between the tasks that run the file, or that the bundle builds from what
only a run knows (`${workspace.current_user...}`, `{{job.start_time...}}`), is known only at
run time (an `Unknown` naming each). Nothing here runs or imports the code; YAML is read with
`safe_load` (PyYAML, imported only when a repository has a bundle).

Here: the bundle that deploys a job and what the job's code reads from it. Reading and merging
the bundle's files is `extract/bundle_settings.py`; the runs of one file and the values they
give it, `extract/bundle_runs.py`.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from streamlint.extract.bundle_runs import Run, _resolved, _runs, _targets
from streamlint.extract.bundle_settings import _library_places, _list, _merged, _task_places, _tasks
from streamlint.extract.values import EnvDefault
from streamlint.model import Unknown, origins_of, show
from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.modules import Loader
    from streamlint.extract.project import Files

BUNDLE_FILES = ("databricks.yml", "databricks.yaml")
# Databricks runtime (major, minor) -> the Apache Spark it ships: the runtimes' release
# notes. A minor not listed takes its major's.
_RUNTIMES = {(10, None): "3.2", (11, None): "3.3", (12, None): "3.3", (13, None): "3.4",
             (14, None): "3.5", (15, None): "3.5", (16, None): "3.5", (17, None): "4.0",
             (18, None): "4.1"}


@record
class Deployment:
    """The bundle that runs a job file, and each way it runs it."""

    bundle: str  # root-relative path of databricks.yml
    files: tuple[tuple[str, str], ...]  # the bundle's files read: path, digest of its text
    runs: tuple[Run, ...]


# -- finding and reading ---------------------------------------------------------------------


def deployment(files: Files, job: str) -> Deployment | None:
    """The bundle in the job's folder or one above it, with the runs of `job`; None when
    there is none, or it cannot be read (not YAML, not a mapping)."""
    folder = posixpath.dirname(job)
    while True:
        for name in BUNDLE_FILES:
            path = posixpath.join(folder, name)
            text = files.read(path)
            if text is not None:
                try:
                    return _deployment(files, path, text, job)
                except RecursionError:  # YAML anchors can make a list hold itself
                    return None
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def of_loader(loader: Loader | None) -> Deployment | None:
    """The job's bundle, read once per extraction and only when the code reads a parameter;
    its files count as followed (a changed bundle is a changed job)."""
    if loader is None:
        return None
    if loader.deployment is None:
        found = deployment(loader.project.files, loader.project.job)
        loader.deployment = found or False
        for path, digest in found.files if found else ():
            loader.followed[path] = digest
    return loader.deployment or None


def _deployment(files: Files, bundle: str, text: str, job: str) -> Deployment | None:
    found = _merged(files, bundle, text)
    if found is None:
        return None
    merged, read = found
    return Deployment(bundle, read, tuple(_runs(merged, posixpath.dirname(bundle), job)))


def files_run(files: Files, bundle: str, text: str) -> list[tuple[str, bool]]:
    """Every file a bundle runs, under any target, as (root-relative path, is a glob); a
    notebook's path may lack its extension."""
    try:
        found = _merged(files, bundle, text)
    except RecursionError:
        return []
    if found is None:
        return []
    merged, _ = found
    run: list[tuple[str, bool]] = []
    for scope, resources in _targets(merged, posixpath.dirname(bundle)):
        jobs = resources.get("jobs") if isinstance(resources, dict) else None
        for spec in jobs.values() if isinstance(jobs, dict) else ():
            for task in _tasks(spec):
                run += [(p, False) for p in map(lambda place: _resolved(place, scope),
                                                _task_places(task)) if p is not None]
        pipelines = resources.get("pipelines") if isinstance(resources, dict) else None
        for spec in pipelines.values() if isinstance(pipelines, dict) else ():
            for library in _list(spec, "libraries"):
                for kind, place in _library_places(library):
                    path = _resolved(place, scope)
                    if path is not None:
                        run.append((path, kind == "glob"))
    return sorted(set(run))


# -- what the code reads ---------------------------------------------------------------------


def setting(found: Deployment | None, kind: str, name: str, default: Any) -> Any:
    """What the bundle gives a widget ("widget") or a Spark configuration key ("conf"):
    its text, an `Unknown` when the runs disagree or it is known only at run time, or None
    when no run sets it (the code's `default` stands). A run that does not set it has the
    default."""
    if found is None:
        return None
    values: list[tuple[str, Any]] = []
    given = False
    for run in found.runs:
        table = run.conf if kind == "conf" else run.widgets
        if table is None:
            continue
        pairs = dict(table)
        given = given or name in pairs
        values.append((run.where, pairs.get(name, default)))
    return _agreed(found, values, f"{'Spark configuration' if kind == 'conf' else 'widget'} "
                   f"{name!r}") if given else None


def parameter(given: Any, default: Any, origin: str, otherwise: Any) -> Any:
    """A parameter's value: what the job's bundle sets (`given`: it wins over the code's
    default, and a change to it is judged like one in the code), else a text default a
    deployment may override (an `EnvDefault` remembering `origin`), else `otherwise`."""
    if isinstance(default, str):
        origins = (*origins_of(default), (origin, str(default)))
        # The origin keeps the code's default: set by the bundle to what the default was, a
        # value is the same as before; the bundle's value itself is compared as a value.
        if isinstance(given, str):
            return EnvDefault(given, origins)
        return given if given is not None else EnvDefault(default, origins)
    return given if given is not None else otherwise


def argument(found: Deployment | None, flag: str, default: Any) -> Any:
    """What the bundle's Python file tasks pass for `--flag` (`--flag v` or `--flag=v`)."""
    if found is None:
        return None
    values: list[tuple[str, Any]] = []
    given = False
    for run in found.runs:
        if run.argv is None:
            continue
        value, present = _flag(run.argv, flag)
        given = given or present
        values.append((run.where, value if present else default))
    return _agreed(found, values, f"argument {flag}") if given else None


def _flag(argv: tuple[str | None, ...], flag: str) -> tuple[str | None, bool]:
    for i, item in enumerate(argv):
        if item == flag:
            return (argv[i + 1] if i + 1 < len(argv) else None), True
        if item is not None and item.startswith(flag + "="):
            return item[len(flag) + 1:], True
    return None, False


def _agreed(found: Deployment, values: list[tuple[str, Any]], what: str) -> Any:
    distinct = {str(v) if v is not None else None for _, v in values}
    if len(distinct) == 1 and None not in distinct:
        return next(v for _, v in values)
    if distinct == {None}:
        # Known at run time under every target: the same value however many targets name
        # it (a target added or removed changes no deployment's value).
        return Unknown(f"{what} as {found.bundle} sets it (known at run time)")
    shown = "; ".join(f"{where}: {show(v) if v is not None else 'known at run time'}"
                      for where, v in values)
    return Unknown(f"{what} as {found.bundle} sets it ({shown})")


@record
class Clusters:
    """The Apache Spark version of the clusters a bundle runs a file on, and what it was read
    from; `runtime` their Databricks runtime as written ("17.3.x-scala2.13") when they all run
    the same one, else ""."""

    spark: str
    where: str
    runtime: str = ""


def spark_version(found: Deployment | None) -> Clusters | None:
    """The clusters the bundle runs the file on; None when no cluster says (serverless, a
    pipeline, an existing cluster), or the clusters' runtimes ship different Sparks."""
    if found is None:
        return None
    versions: dict[str, str] = {}
    runtimes = {run.runtime for run in found.runs if run.runtime}
    for run in found.runs:
        spark = spark_of_runtime(run.runtime) if run.runtime else None
        if spark is not None:
            versions.setdefault(spark, f"{found.bundle}: {run.where}, spark_version "
                                       f"{run.runtime}")
    if len(versions) != 1:
        return None
    spark, where = next(iter(versions.items()))
    return Clusters(spark, where, next(iter(runtimes)) if len(runtimes) == 1 else "")


def spark_of_runtime(runtime: str) -> str | None:
    """`15.4.x-scala2.12` (Databricks runtime 15.4) -> "3.5"; None for a runtime not known."""
    match = re.match(r"(\d+)\.(\d+|x)", runtime.strip())
    if match is None:
        return None
    major = int(match.group(1))
    minor = int(match.group(2)) if match.group(2).isdigit() else None
    return _RUNTIMES.get((major, minor)) or _RUNTIMES.get((major, None))
