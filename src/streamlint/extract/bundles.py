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
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from streamlint.extract.globs import glob_match
from streamlint.extract.values import EnvDefault
from streamlint.model import Unknown, origins_of, show
from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.modules import Loader
    from streamlint.extract.project import Files

BUNDLE_FILES = ("databricks.yml", "databricks.yaml")
MAX_BUNDLE_BYTES = 1_000_000
BUNDLE_VAR = "BUNDLE_VAR_"  # a variable's value as the deployment's environment sets it
MAX_INCLUDED = 200  # resource files of one bundle
MAX_DEPTH = 8  # variables defined through variables
_SUBSTITUTION = re.compile(r"\$\{([^}]*)\}")
_DYNAMIC = re.compile(r"\{\{\s*([^}]*?)\s*\}\}")
_EXTENSIONS = (".py", ".ipynb", ".sql", ".scala", ".r")
# Lists a target merges into the top-level one item by item (by this key), as the CLI does.
_KEYED = ("task_key", "job_cluster_key", "name")
# Databricks runtime (major, minor) -> the Apache Spark it ships: the runtimes' release
# notes. A minor not listed takes its major's.
_RUNTIMES = {(10, None): "3.2", (11, None): "3.3", (12, None): "3.3", (13, None): "3.4",
             (14, None): "3.5", (15, None): "3.5", (16, None): "3.5", (17, None): "4.0",
             (18, None): "4.1"}


@record
class Run:
    """One way the bundle runs the file: a job's task or a pipeline, under one target."""

    where: str  # "job 'orders' task 'ingest' (target prod)"
    widgets: tuple[tuple[str, str | None], ...] | None  # a notebook task's; None: no notebook
    conf: tuple[tuple[str, str | None], ...]  # spark_conf / configuration; None: unresolved
    argv: tuple[str | None, ...] | None  # a Python file task's command line
    runtime: str | None  # the cluster's spark_version; None: none known (serverless, pipeline)


@record
class Deployment:
    """The bundle that runs a job file, and each way it runs it."""

    bundle: str  # root-relative path of databricks.yml
    files: tuple[tuple[str, str], ...]  # the bundle's files read: path, digest of its text
    runs: tuple[Run, ...]


@record
class Place:
    """A path as a bundle file writes it, with that file's folder."""

    folder: str
    path: str


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


def bundle_files(bundle: str, text: str, matching: Any) -> list[str]:
    """The root-relative paths of a bundle's files: itself and what `include:` names."""
    data = _parse(bundle, text)
    if not isinstance(data, dict):
        return [bundle]
    folder = posixpath.dirname(bundle)
    found = [bundle]
    patterns = data.get("include")
    for pattern in [patterns] if isinstance(patterns, str) else _as_list(patterns):
        if isinstance(pattern, str):
            joined = posixpath.normpath(posixpath.join(folder, pattern))
            if not joined.startswith(".."):
                found += [p for p in matching(joined) if p not in found]
    return found[:MAX_INCLUDED + 1]


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


def _merged(files: Files, bundle: str, text: str
            ) -> tuple[dict[str, Any], tuple[tuple[str, str], ...]] | None:
    """The bundle's settings, its included files merged in, and the files read (digests)."""
    documents: list[dict[str, Any]] = []
    read: list[tuple[str, str]] = []
    matching = getattr(files, "matching", lambda pattern: [])
    for path in bundle_files(bundle, text, matching):
        body = text if path == bundle else files.read(path)
        if body is None:
            continue
        data = _parse(path, body)
        read.append((path, _digest(body)))
        if isinstance(data, dict):
            documents.append(_placed(data, posixpath.dirname(path)))
        elif path == bundle:
            return None
    merged: dict[str, Any] = {}
    for data in documents:
        merged = _merge(merged, {k: data.get(k) for k in ("bundle", "variables", "resources",
                                                           "targets") if k in data})
    return (merged, tuple(read)) if documents else None


_CACHE: dict[tuple[str, str], Any] = {}
_CACHE_LIMIT = 64


def _parse(path: str, text: str) -> Any:
    """The YAML's data (safe_load), or None when it is too big or no YAML; parsed once per
    process for a given text (`check` hands every job the same bundle)."""
    key = (path, _digest(text))
    if key in _CACHE:
        return _CACHE[key]
    import yaml  # only for a repository with a bundle

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader) if len(text) <= MAX_BUNDLE_BYTES else None
    except (yaml.YAMLError, ValueError, RecursionError):
        data = None
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = data
    return data


def _digest(text: str) -> str:
    import hashlib  # OpenSSL's: a few MB, only for a repository with a bundle

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _placed(data: dict[str, Any], folder: str) -> dict[str, Any]:
    """The file's data with each path a task or pipeline runs written as a `Place` (paths
    are relative to the file that writes them, which merging would forget)."""
    def resources(found: Any) -> Any:
        if not isinstance(found, dict):
            return found
        jobs = found.get("jobs")
        for job in jobs.values() if isinstance(jobs, dict) else ():
            for task in _tasks(job):
                for kind, key in _TASK_PATHS:
                    spec = task.get(kind)
                    if isinstance(spec, dict) and isinstance(spec.get(key), str):
                        spec[key] = Place(folder, spec[key])
        pipelines = found.get("pipelines")
        for pipeline in pipelines.values() if isinstance(pipelines, dict) else ():
            for library in _list(pipeline, "libraries"):
                for kind, key in _LIBRARY_PATHS:
                    spec = library.get(kind) if isinstance(library, dict) else None
                    if isinstance(spec, dict) and isinstance(spec.get(key), str):
                        spec[key] = Place(folder, spec[key])
        return found

    data = copy.deepcopy(data)  # the parsed text is cached: never written into
    data["resources"] = resources(data.get("resources"))
    targets = data.get("targets")
    for target in targets.values() if isinstance(targets, dict) else ():
        if isinstance(target, dict):
            target["resources"] = resources(target.get("resources"))
    return data


_TASK_PATHS = (("notebook_task", "notebook_path"), ("spark_python_task", "python_file"))
_LIBRARY_PATHS = (("notebook", "path"), ("file", "path"), ("glob", "include"))


def _task_places(task: dict[str, Any]) -> list[Place]:
    found = [task.get(kind) for kind, _ in _TASK_PATHS]
    return [spec.get(key) for spec, (_, key) in zip(found, _TASK_PATHS, strict=True)
            if isinstance(spec, dict) and isinstance(spec.get(key), Place)]


def _library_places(library: Any) -> list[tuple[str, Place]]:
    found = []
    for kind, key in _LIBRARY_PATHS:
        spec = library.get(kind) if isinstance(library, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get(key), Place):
            found.append((kind, spec[key]))
    return found


def _merge(base: Any, over: Any) -> Any:
    """A target's (or a later file's) settings over the others: mappings key by key, lists
    of tasks, clusters and parameters item by item, anything else replaced."""
    if over is None:
        return base
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _merge(base.get(key), value)
        return merged
    if isinstance(base, list) and isinstance(over, list):
        for key in _KEYED:
            if all(isinstance(i, dict) and isinstance(i.get(key), str) for i in (*base, *over)):
                merged_items = {i[key]: i for i in base}
                for item in over:
                    merged_items[item[key]] = _merge(merged_items.get(item[key]), item)
                return list(merged_items.values())
    return over


def _list(spec: Any, key: str) -> list[Any]:
    return _as_list(spec.get(key) if isinstance(spec, dict) else None)


def _as_list(found: Any) -> list[Any]:
    return found if isinstance(found, list) else []


def _tasks(job: Any) -> Iterator[dict[str, Any]]:
    """A job's tasks, and the task inside each `for_each_task`."""
    for task in _list(job, "tasks"):
        while isinstance(task, dict):
            yield task
            inner = task.get("for_each_task")
            task = inner.get("task") if isinstance(inner, dict) else None


# -- the runs of one file --------------------------------------------------------------------


@record
class _Scope:
    """What `${...}` resolves against under one target."""

    variables: dict[str, Any]
    target: str | None
    name: str | None
    folder: str  # the bundle's folder (`${workspace.file_path}`)


def _targets(merged: dict[str, Any], folder: str) -> Iterator[tuple[_Scope, Any]]:
    """Each target's scope and resources (the top-level ones when there is no target)."""
    targets = merged.get("targets") if isinstance(merged.get("targets"), dict) else {}
    bundle = merged.get("bundle") if isinstance(merged.get("bundle"), dict) else {}
    for target in list(targets) or [None]:
        chosen = targets.get(target) if target is not None else None
        chosen = chosen if isinstance(chosen, dict) else {}
        scope = _Scope(_variables(merged.get("variables"), chosen.get("variables")), target,
                       bundle.get("name"), folder)
        yield scope, _merge(merged.get("resources"), chosen.get("resources")) or {}


def _runs(merged: dict[str, Any], folder: str, job: str) -> Iterator[Run]:
    for scope, resources in _targets(merged, folder):
        suffix = f" (target {scope.target})" if scope.target is not None else ""
        jobs = resources.get("jobs") if isinstance(resources, dict) else None
        for key, spec in jobs.items() if isinstance(jobs, dict) else ():
            yield from _job_runs(spec, f"job {key!r}", suffix, scope, job)
        pipelines = resources.get("pipelines") if isinstance(resources, dict) else None
        for key, spec in pipelines.items() if isinstance(pipelines, dict) else ():
            if any(_matches(place, scope, job, glob=kind == "glob")
                   for library in _list(spec, "libraries")
                   for kind, place in _library_places(library)):
                conf = spec.get("configuration") if isinstance(spec, dict) else None
                yield Run(f"pipeline {key!r}{suffix}", None, _pairs(conf, scope, {}), None,
                          None)


def _variables(defaults: Any, chosen: Any) -> dict[str, Any]:
    """The variables' values under one target: the default, the target's value, then what the
    deployment sets (`BUNDLE_VAR_<name>` in the environment, which `--var` sets too), in the
    bundle CLI's order; only for the variables the bundle declares."""
    found = {}
    for name, spec in defaults.items() if isinstance(defaults, dict) else ():
        value = spec.get("default") if isinstance(spec, dict) else spec
        if value is not None and not isinstance(value, dict | list):
            found[name] = value
    for name, value in chosen.items() if isinstance(chosen, dict) else ():
        value = value.get("default") if isinstance(value, dict) else value
        if value is not None and not isinstance(value, dict | list):
            found[name] = value
        else:
            found.pop(name, None)  # a lookup (`lookup: cluster: ...`): known at deploy time
    declared = set(defaults) if isinstance(defaults, dict) else set()
    for key, value in os.environ.items():
        if key.startswith(BUNDLE_VAR) and key[len(BUNDLE_VAR):] in declared:
            found[key[len(BUNDLE_VAR):]] = value
    return found


def _job_runs(spec: Any, name: str, suffix: str, scope: _Scope, job: str) -> Iterator[Run]:
    if not isinstance(spec, dict):
        return
    params = {p["name"]: p.get("default") for p in _list(spec, "parameters")
              if isinstance(p, dict) and isinstance(p.get("name"), str)}
    clusters = {c["job_cluster_key"]: c.get("new_cluster") for c in _list(spec, "job_clusters")
                if isinstance(c, dict) and isinstance(c.get("job_cluster_key"), str)}
    resolved = {k: _text(v, scope, {}) for k, v in params.items()}
    for task in _tasks(spec):
        notebook, python = task.get("notebook_task"), task.get("spark_python_task")
        if not any(_matches(place, scope, job) for place in _task_places(task)):
            continue
        key = task.get("job_cluster_key")
        cluster = task.get("new_cluster") or (clusters.get(key) if isinstance(key, str) else None)
        cluster = cluster if isinstance(cluster, dict) else {}
        where = f"{name} task {task.get('task_key')!r}{suffix}"
        # Job parameters reach a notebook's widgets, and win over the task's own.
        widgets = ({**dict(_pairs(notebook.get("base_parameters"), scope, resolved)),
                    **resolved} if isinstance(notebook, dict) else None)
        argv = (tuple(_text(a, scope, resolved) for a in _list(python, "parameters"))
                if isinstance(python, dict) else None)
        runtime = _text(cluster.get("spark_version"), scope, resolved) \
            if "existing_cluster_id" not in task else None
        yield Run(where, tuple(widgets.items()) if widgets is not None else None,
                  _pairs(cluster.get("spark_conf"), scope, resolved), argv, runtime)


def _pairs(mapping: Any, scope: _Scope, params: dict[str, str | None]
           ) -> tuple[tuple[str, str | None], ...]:
    if not isinstance(mapping, dict):
        return ()
    return tuple((str(k), _text(v, scope, params)) for k, v in mapping.items())


def _text(value: Any, scope: _Scope, params: dict[str, str | None], depth: int = 0
          ) -> str | None:
    """A setting as the run sees it: `${var.x}`, `${bundle.target}` and
    `{{job.parameters.x}}` replaced; None when it needs what only a run or a deployment knows."""
    if value is None or isinstance(value, dict | list) or depth > MAX_DEPTH:
        return None
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    unresolved = False

    def substitute(match: re.Match[str]) -> str:
        nonlocal unresolved
        name = match.group(1).strip()
        found: Any = None
        if name.startswith("var."):
            found = scope.variables.get(name[4:])
            found = _text(found, scope, params, depth + 1) if found is not None else None
        elif name == "bundle.target":
            found = scope.target
        elif name == "bundle.name":
            found = scope.name
        if found is None:
            unresolved = True
            return ""
        return str(found)

    def dynamic(match: re.Match[str]) -> str:
        nonlocal unresolved
        name = match.group(1)
        found = params.get(name[len("job.parameters."):]) if name.startswith(
            "job.parameters.") else None
        if found is None:
            unresolved = True
            return ""
        return found

    text = _DYNAMIC.sub(dynamic, _SUBSTITUTION.sub(substitute, text))
    return None if unresolved else text


def _resolved(place: Place, scope: _Scope) -> str | None:
    """The root-relative path a bundle's path names; None outside the repository."""
    written = place.path
    for prefix in ("${workspace.file_path}", "/Workspace${workspace.file_path}"):
        if written.startswith(prefix):
            written = posixpath.join(scope.folder, written[len(prefix):].lstrip("/"))
            break
    else:
        if written.startswith("/"):
            return None  # a workspace path: not a file of this repository
        written = posixpath.join(place.folder, written)
    text = _text(written, scope, {})
    path = posixpath.normpath(text) if text is not None else None
    return path if path is not None and not path.startswith("..") else None


def _matches(place: Place, scope: _Scope, job: str, glob: bool = False) -> bool:
    return runs(_resolved(place, scope), glob, job)


def runs(path: str | None, glob: bool, job: str) -> bool:
    """Whether a path a bundle runs (a glob of a pipeline's) is the file `job`."""
    if path is None:
        return False
    if glob:
        return glob_match(path, job) or glob_match(path.rstrip("/") + "/**", job)
    return path == job or (job.lower().endswith(_EXTENSIONS) and
                           path == posixpath.splitext(job)[0])


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


def spark_version(found: Deployment | None) -> tuple[str, str] | None:
    """The Apache Spark version of the clusters the bundle runs the file on, and what it was
    read from; None when no cluster says (serverless, a pipeline, an existing cluster), or
    the clusters' runtimes ship different Sparks."""
    if found is None:
        return None
    versions = {}
    for run in found.runs:
        spark = spark_of_runtime(run.runtime) if run.runtime else None
        if spark is not None:
            versions.setdefault(spark, f"{found.bundle}: {run.where}, spark_version "
                                       f"{run.runtime}")
    return next(iter(versions.items())) if len(versions) == 1 else None


def spark_of_runtime(runtime: str) -> str | None:
    """`15.4.x-scala2.12` (Databricks runtime 15.4) -> "3.5"; None for a runtime not known."""
    match = re.match(r"(\d+)\.(\d+|x)", runtime.strip())
    if match is None:
        return None
    major = int(match.group(1))
    minor = int(match.group(2)) if match.group(2).isdigit() else None
    return _RUNTIMES.get((major, minor)) or _RUNTIMES.get((major, None))
