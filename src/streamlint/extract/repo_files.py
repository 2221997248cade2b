"""A file of the job's repository as the job opens it, and its content as a value.

`open(p)` and `Path(p)` name a `RepoFile`: found where the job would find it (relative to
the repository root, else to the module's folder and those above it; an absolute path into a
checkout of this very repository by its longest tail the repository has), read through the
extractor's `Project`, and counted as followed (a changed file is a changed job). Its text is
parsed, never run (json, TOML, YAML with `safe_load` only) into the interpreter's values. A
file that cannot be read is an `Unknown` whose `unread` names it. The libraries a job reads
files with are handlers in `extract/config_files.py`.
"""

from __future__ import annotations

import json
import posixpath
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract.values import Items, PathValue
from streamlint.model import Origin, Overridable, Unknown, origins_of
from streamlint.model.records import record, replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

MAX_CONFIG_BYTES = 1_000_000  # a configuration file, not a data set
MAX_ITEMS = 10_000


@record
class RepoFile:
    """A file of the job's repository (`open(p)`, `Path(p)`): its root-relative path and
    text, or why it could not be read (`unread`)."""

    path: str  # as the job wrote it (for messages)
    found: str | None  # root-relative path of the file read, None if none
    text: str | None
    unread: str = ""
    # The path is a deployment's default (`os.getenv("CONFIG", "conf/prod.yaml")`): the file
    # it names is read, and every value in it is a default the deployment may override.
    origins: tuple[tuple[str, str], ...] = ()


def read_file(interp: Interpreter, path: Any, code: str) -> RepoFile:
    """The repository's file at `path`, as the job would find it."""
    if isinstance(path, RepoFile):
        return path
    if isinstance(path, PathValue):
        path = path.path
    if not isinstance(path, str):
        shown = path.text if isinstance(path, Unknown) else code
        return RepoFile(shown, None, None,
                        f"the file at {shown} (its path is known only at run time)")
    origins = tuple((f"{origin} (the file it names)", default)
                    for origin, default in origins_of(path))
    found = _read(interp, str(path))
    return replace(found, origins=origins) if origins else found


def _read(interp: Interpreter, path: str) -> RepoFile:
    loader = interp.loader
    if path.startswith(CLUSTER_PATHS):
        # An absolute path into a checkout of this very repository (a developer's
        # `/Users/me/projects/repo/src/config.json`, `/Workspace/Repos/me/repo/conf/x.yaml`):
        # the repository's file at the longest tail of it that the repository has.
        checkout = _in_checkout(loader, path) if loader is not None else None
        if checkout is None:
            return RepoFile(path, None, None, f"{path} (a path on the cluster)")
        text = loader.read(checkout) if loader is not None else None
        if text is not None and len(text) <= MAX_CONFIG_BYTES:
            loader.followed[checkout] = _digest(text)  # type: ignore[union-attr]
            return RepoFile(path, checkout, text)
    if loader is None:
        return RepoFile(path, None, None, f"{path} (no repository to read it from)")
    for candidate in _candidates(interp, path):
        text = loader.read(candidate)
        if text is not None:
            if len(text) > MAX_CONFIG_BYTES:
                return RepoFile(path, None, None, f"{path} (too big to be a configuration)")
            loader.followed[candidate] = _digest(text)
            return RepoFile(path, candidate, text)
    return RepoFile(path, None, None, f"{path} (not in the repository)")


CLUSTER_PATHS = ("/", "dbfs:", "s3:", "s3a:", "abfss:", "gs:", "file:", "wasbs:")


# Absolute paths that name storage, never a checkout of the repository.
_STORAGE = ("/dbfs/", "/Volumes/", "/mnt/", "/tmp/", "/data/")


def _in_checkout(loader: Any, path: str) -> str | None:
    """The repository file an absolute local path names, by the longest tail of at least two
    components that is a file of the repository; None for storage or no such file."""
    if not path.startswith("/") or path.startswith(_STORAGE):
        return None
    parts = [p for p in path.split("/") if p and p != "."]
    if ".." in parts:
        return None
    for start in range(len(parts) - 1):
        if len(parts) - start < 2:
            break
        tail = "/".join(parts[start:])
        if loader.read(tail) is not None:
            return tail
    return None


def _candidates(interp: Interpreter, path: str) -> list[str]:
    """Where a relative path may lead: the repository root, the module's folder, then each
    folder above the module's, nearest first. The working directory is the deployment's
    choice (`WORKDIR /app` beside a Dockerfile's `ADD src/config.json /app/`, a `cd src`
    before `spark-submit consumer/job.py`); a file of that name in a folder the job sits
    in is the one its deployment ships."""
    here = interp.context.relpath or interp.loader.project.job
    folders = ["", posixpath.dirname(here)]
    folder = folders[-1]
    while folder:
        folder = posixpath.dirname(folder)
        folders.append(folder)
    found = []
    for base in folders:
        joined = posixpath.normpath(posixpath.join(base, path))
        if not joined.startswith("..") and joined not in found:
            found.append(joined)
    return found


def _digest(text: str) -> str:
    import hashlib  # lazily: it loads OpenSSL, 2.5 ms of a run that reads no file

    return hashlib.sha256(text.encode()).hexdigest()[:16]


def unread(code: str, why: str, origin: Origin | None = None) -> Unknown:
    """A value of a file not read; without `origin`, the file's whole content."""
    return Unknown(code, unread=why, origin=origin or Origin("file", why))


def from_data(value: Any, origins: tuple[tuple[str, str], ...] = ()) -> Any:
    """Parsed data as the interpreter's values: lists are `Items`, keys strings; with
    `origins`, every text a deployment's default (`Overridable`)."""
    count = [0]

    def convert(item: Any) -> Any:
        count[0] += 1
        if count[0] > MAX_ITEMS:
            raise ValueError("too many items")
        if isinstance(item, dict):
            return {str(k) if not isinstance(k, int | bool) else k: convert(v)
                    for k, v in item.items()}
        if isinstance(item, list | tuple):
            return Items(convert(v) for v in item)
        if isinstance(item, str):
            return Overridable(item, origins) if origins else item
        if item is None or isinstance(item, int | float | bool):
            return item
        return str(item)  # a YAML date, a TOML datetime: its text

    return convert(value)


def _text_of(interp: Interpreter, value: Any, code: str) -> str | Unknown:
    """What a parser is given: a file opened here, its text, or text built in the job."""
    if isinstance(value, RepoFile):
        return value.text if value.text is not None else unread(code, value.unread)
    if isinstance(value, str):
        return value
    if isinstance(value, Unknown) and value.unread:
        return unread(code, value.unread)
    return Unknown(code)


def parse(kind: str, text: str) -> Any:
    """The data of a configuration file's text; raises ValueError when it is not that."""
    if kind == "json":
        return json.loads(text)
    if kind == "toml":
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ValueError(str(err)) from None
    try:
        import yaml
    except ModuleNotFoundError:
        raise ValueError("PyYAML is not installed") from None
    try:
        return yaml.safe_load(text)  # never yaml.load: a tag must not build objects
    except yaml.YAMLError as err:
        raise ValueError(str(err)) from None


def load(interp: Interpreter, kind: str, value: Any, node: cst.Call) -> Any:
    code = interp.code(node)
    text = _text_of(interp, value, code)
    if not isinstance(text, str):
        return text
    origins = value.origins if isinstance(value, RepoFile) else origins_of(value)
    try:
        return from_data(parse(kind, text), origins)
    except (ValueError, RecursionError):
        # The job would fail here on this text; what it reads instead is not known.
        where = value.path if isinstance(value, RepoFile) else code
        return unread(code, f"{where} (not readable as {kind})")
