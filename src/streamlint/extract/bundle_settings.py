"""A Databricks Asset Bundle's settings: `databricks.yml` and the resource files its `include:`
globs name, parsed and merged as the bundle CLI merges them.

YAML is read with `safe_load` (PyYAML, imported only when a repository has a bundle), once per
text however many jobs ask. Each path a task or pipeline runs is kept as a `Place` with the
folder of the file that writes it (paths are relative to that file, which merging would
forget). A later file's or a target's settings go over the others: mappings key by key, lists
of tasks, clusters and parameters item by item. What the settings run, and with what, is
`extract/bundle_runs.py`; what a job's code reads from them, `extract/bundles.py`.
"""

from __future__ import annotations

import copy
import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.project import Files

MAX_BUNDLE_BYTES = 1_000_000
MAX_INCLUDED = 200  # resource files of one bundle
# Lists a target merges into the top-level one item by item (by this key), as the CLI does.
_KEYED = ("task_key", "job_cluster_key", "name")


@record
class Place:
    """A path as a bundle file writes it, with that file's folder."""

    folder: str
    path: str


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
