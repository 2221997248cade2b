"""How a Databricks Asset Bundle runs a file: the job tasks and pipelines that run it, under
each target, and the values they give it.

A notebook task's `base_parameters` and the job's `parameters` are the notebook's widgets, a
Python file task's `parameters` its command line, a cluster's `spark_conf` and a pipeline's
`configuration` what `spark.conf.get` reads, and the cluster's `spark_version` the
Databricks runtime (each a `Run`). `${var.x}` takes the variable's default, the target's
value for it, then the deployment's `BUNDLE_VAR_x`; `${bundle.target}`,
`${workspace.file_path}` and `{{job.parameters.x}}` are resolved; anything only a run
knows leaves the value unknown (None). A notebook path may leave out its extension; a
pipeline's glob runs every file under it.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from typing import Any

from streamlint.extract.bundle_settings import (
    Place,
    _library_places,
    _list,
    _merge,
    _task_places,
    _tasks,
)
from streamlint.extract.globs import glob_match
from streamlint.model.records import record

BUNDLE_VAR = "BUNDLE_VAR_"  # a variable's value as the deployment's environment sets it
MAX_DEPTH = 8  # variables defined through variables
_SUBSTITUTION = re.compile(r"\$\{([^}]*)\}")
_DYNAMIC = re.compile(r"\{\{\s*([^}]*?)\s*\}\}")
_EXTENSIONS = (".py", ".ipynb", ".sql", ".scala", ".r")


@record
class Run:
    """One way the bundle runs the file: a job's task or a pipeline, under one target."""

    where: str  # "job 'orders' task 'ingest' (target prod)"
    widgets: tuple[tuple[str, str | None], ...] | None  # a notebook task's; None: no notebook
    conf: tuple[tuple[str, str | None], ...]  # spark_conf / configuration; None: unresolved
    argv: tuple[str | None, ...] | None  # a Python file task's command line
    runtime: str | None  # the cluster's spark_version; None: none known (serverless, pipeline)


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
