"""What a project declares about the Spark its jobs run on: a pyspark (or Spark Connect
client, or databricks-connect) pin in pyproject.toml or requirements*.txt, the version a lock
file resolved, or the runtime of a Databricks job's cluster spec (`*job*.json`).

The files are given as text by path (repository-relative in git mode, on disk for `diff`),
so the same reading serves the working tree and a git ref. The nearest folder that declares
something wins, from the job's folder up to the repository root; within a folder, a pin in
pyproject.toml, then requirements files, then lock files, then job specs. Only a pin names a
version: `pyspark>=3.5` says nothing about the cluster.
"""

from __future__ import annotations

import binascii
import json
import marshal
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from posixpath import basename, dirname
from typing import Any

from streamlint.model.records import __file__ as records_file
from streamlint.model.records import fields, record
from streamlint.rulebook.book import user_cache


@record
class Declaration:
    """A version found in a project file: a Spark version ("4.3.0") or a Databricks runtime
    (`runtime`, "17.3"), with what was written and where."""

    spark: str
    runtime: str  # a Databricks runtime ("17.3", "15"), else ""
    written: str  # `pyspark==4.3.0`, `spark_version = "17.3.x-scala2.13"`
    path: str


# The packages whose pin is the Spark version (the Spark Connect clients are versioned with
# Spark), and databricks-connect, versioned with the Databricks runtime it connects to.
SPARK_PACKAGES = ("pyspark", "pyspark-client", "pyspark-connect")
RUNTIME_PACKAGE = "databricks-connect"
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;#]*)")
_VERSION = r"(\d+(?:\.\d+)*)"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(spec: str) -> str | None:
    """The version a specifier pins to one minor release, else None: `==4.3.0`, `==4.3.*`,
    `~=3.5.1` (>=3.5.1,<3.6), `>=3.5.0,<3.6`; Poetry's `3.5.1` and `~3.5`."""
    spec = spec.strip().strip('"').strip()
    if re.fullmatch(_VERSION, spec):  # Poetry: a bare version is exact
        return spec
    parts = [p.strip().replace(" ", "") for p in spec.split(",") if p.strip()]
    for part in parts:
        match = re.fullmatch(r"===?" + _VERSION + r"(?:\.\*)?", part)
        if match:
            return match[1]
        match = re.fullmatch(r"~=?" + _VERSION, part)
        if match and (part.startswith("~=") and match[1].count(".") >= 2
                      or not part.startswith("~=") and match[1].count(".") >= 1):
            return match[1]
    lower = next((m[1] for p in parts if (m := re.fullmatch(r">=" + _VERSION, p))), None)
    upper = next((m[1] for p in parts if (m := re.fullmatch(r"<" + _VERSION, p))), None)
    if lower and upper and lower.count(".") >= 1:
        major, minor = (int(x) for x in lower.split(".")[:2])
        if [int(x) for x in upper.split(".")] in ([major, minor + 1], [major, minor + 1, 0]):
            return lower
    return None


def from_requirement(line: str, path: str) -> Declaration | None:
    """A declaration of one requirement line (`pyspark[connect]==4.3.0; python_version>"3.9"`)."""
    match = _REQUIREMENT.match(line)
    if not match:
        return None
    return _declaration(match[1], match[2], line.split(";")[0].split("#")[0].strip(), path)


def _declaration(name: str, spec: str, written: str, path: str) -> Declaration | None:
    package = _normal(name)
    if package not in (*SPARK_PACKAGES, RUNTIME_PACKAGE):
        return None
    version = pinned(spec)
    if version is None:
        return None
    if package == RUNTIME_PACKAGE:
        return Declaration("", ".".join(version.split(".")[:2]), written, path)
    return Declaration(version, "", written, path)


def _first(found: Iterable[Declaration | None]) -> Declaration | None:
    """databricks-connect names the cluster the jobs run on: it goes before a pyspark pin."""
    listed = [d for d in found if d is not None]
    return next((d for d in listed if d.runtime), None) or next(iter(listed), None)


def _toml(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def read_pyproject(text: str, path: str) -> Declaration | None:
    data = _toml(text)
    project = data.get("project", {})
    lines: list[str] = [*_strings(project.get("dependencies"))]
    for group in (project.get("optional-dependencies", {}), data.get("dependency-groups", {})):
        if isinstance(group, dict):
            for values in group.values():
                lines.extend(_strings(values))
    found = [from_requirement(line, path) for line in lines]
    poetry = data.get("tool", {}).get("poetry", {})
    tables = [poetry.get("dependencies", {}), *(g.get("dependencies", {}) for g in
                                                poetry.get("group", {}).values()
                                                if isinstance(g, dict))]
    for table in tables:
        for name, spec in table.items() if isinstance(table, dict) else ():
            version = spec.get("version") if isinstance(spec, dict) else spec
            if isinstance(version, str):
                found.append(_declaration(name, version, f"{name} = {version!r}", path))
    return _first(found)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def read_requirements(text: str, path: str) -> Declaration | None:
    return _first(from_requirement(line, path) for line in text.splitlines()
                  if line.strip() and not line.lstrip().startswith(("#", "-")))


def read_toml_lock(text: str, path: str) -> Declaration | None:
    """uv.lock, poetry.lock, pdm.lock: `[[package]]` tables with a name and a version."""
    packages = _toml(text).get("package", [])
    return _first(_declaration(str(p.get("name", "")), f"=={p.get('version', '')}",
                               f"{p.get('name')} {p.get('version')}", path)
                  for p in packages if isinstance(p, dict))


def read_pipfile_lock(text: str, path: str) -> Declaration | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    found = []
    for section in ("default", "develop"):
        for name, entry in (data.get(section) or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("version"), str):
                found.append(_declaration(name, entry["version"],
                                          f"{name}{entry['version']}", path))
    return _first(found)


_RUNTIME = re.compile(r"(\d+)\.(\d+|x)\.x-")


def read_job_spec(text: str, path: str, job: str) -> Declaration | None:
    """A Databricks job (Jobs API JSON, `databricks jobs get` output): the runtime of the
    cluster that runs the task naming this job file, else of every cluster when they agree."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    settings = data.get("settings", data)
    if not isinstance(settings, dict):
        return None
    clusters = {c.get("job_cluster_key"): c.get("new_cluster", {})
                for c in settings.get("job_clusters", []) if isinstance(c, dict)}
    mine, every = [], [c.get("spark_version") for c in clusters.values() if isinstance(c, dict)]
    for task in [settings, *(t for t in settings.get("tasks", []) if isinstance(t, dict))]:
        cluster = task.get("new_cluster") or clusters.get(task.get("job_cluster_key")) or {}
        version = cluster.get("spark_version") if isinstance(cluster, dict) else None
        if version is not None:
            every.append(version)
            if _names_job(task, job):
                mine.append(version)
    versions = {v for v in (mine or every) if isinstance(v, str)}
    if len(versions) != 1:
        return None  # none, or several runtimes: not this job's to guess
    version = versions.pop()
    match = _RUNTIME.match(version)
    if not match:
        return None
    return Declaration("", f"{match[1]}.{match[2]}" if match[2] != "x" else match[1],
                       f"spark_version {version!r}", path)


def _names_job(task: dict[str, Any], job: str) -> bool:
    stem = basename(job).rsplit(".", 1)[0]
    for key, field in (("spark_python_task", "python_file"), ("notebook_task", "notebook_path")):
        named = task.get(key, {}).get(field) if isinstance(task.get(key), dict) else None
        if isinstance(named, str) and basename(named).rsplit(".", 1)[0] == stem:
            return True
    return False


# The files read, in the order a folder's declarations count: a name test and a reader.
# Databricks Asset Bundles (databricks.yml, a job's `new_cluster.spark_version` or
# `environments`) are read on the `bundles` branch: its reader goes here, before the job
# specs. TODO(bundles): add ("databricks.yml", read_bundle).
READERS: tuple[tuple[Callable[[str], bool], Callable[[str, str, str], Declaration | None]],
               ...] = (
    (lambda name: name == "pyproject.toml", lambda t, p, j: remembered(read_pyproject, t, p)),
    (lambda name: name == "requirements.txt", lambda t, p, j: read_requirements(t, p)),
    (lambda name: name.startswith("requirements") and name.endswith(".txt"),
     lambda t, p, j: read_requirements(t, p)),
    (lambda name: name in ("uv.lock", "poetry.lock", "pdm.lock"),
     lambda t, p, j: remembered(read_toml_lock, t, p)),
    (lambda name: name == "Pipfile.lock", lambda t, p, j: read_pipfile_lock(t, p)),
    (lambda name: name.endswith(".json") and "job" in name.lower(), read_job_spec),
)


# What a remembered declaration was read by: an answer of other code is not taken.
_CODE = repr([Path(module).stat().st_mtime_ns for module in (__file__, records_file)])


def remembered(read: Callable[[str, str], Declaration | None], text: str, path: str
               ) -> Declaration | None:
    """`read(text, path)` for a TOML file (pyproject.toml, a lock file), kept in the user's
    cache as the rules are (rulebook/book.py), by the file's path and whole text: importing
    tomllib and parsing a pyproject.toml were 3 ms of the 50 that `diff` adds to parsing the
    job files (bench/bench_diff.py), and a lock file of some hundred kB costs far more. Any
    failure to read or write the cache just means reading the file."""
    folder = user_cache()
    if folder is None:
        return read(text, path)
    key = (_CODE, read.__name__, path, text)
    try:
        name = binascii.crc32("\0".join(key).encode("utf-8", "surrogatepass"))
    except UnicodeError:
        return read(text, path)
    entry = folder / f"declared-{name:08x}.marshal"
    try:
        cached = marshal.loads(entry.read_bytes())
        if cached[0] == key:
            return None if cached[1] is None else Declaration(*cached[1])
    except Exception:  # noqa: BLE001 - a cache that cannot be read is no cache
        pass
    found = read(text, path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = entry.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(marshal.dumps(
            (key, None if found is None else tuple(getattr(found, n) for n in fields(found)))))
        os.replace(temporary, entry)
    except (OSError, ValueError):
        pass
    return found


def is_declaration_file(path: str) -> bool:
    name = basename(path)
    return any(test(name) for test, _ in READERS)


def declared(job: str, files: Mapping[str, str]) -> Declaration | None:
    """What the nearest folder above `job` declares, of `files` (path -> text, the
    declaration files of the project, paths in the same form as `job`, `/`-separated)."""
    folders: dict[str, list[str]] = {}
    for path in files:
        folders.setdefault(dirname(path), []).append(path)
    folder = dirname(job)
    while True:
        names = sorted(folders.get(folder, []))
        for test, reader in READERS:
            for path in names:
                if test(basename(path)):
                    found = reader(files[path], path, job)
                    if found is not None:
                        return found
        if folder in ("", "/") or dirname(folder) == folder:
            return None
        folder = dirname(folder)
