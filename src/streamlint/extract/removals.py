"""A checkpoint's uses in one run: deleted before a query starts, or freed by a query stopped.

Notebooks that show a query several times clear its checkpoint in between (`! rm -rf chk`,
`dbutils.fs.rm(chk, True)`, `shutil.rmtree(chk)`); the query started after a removal starts
afresh, so it does not share the checkpoint with the one before. Each removal is recorded
with the number of queries started before it; `generation` counts, for a query, the removals
of its checkpoint (or a folder holding it) that came before it. Paths not known statically
are not removals anyone can match, so they are not recorded. Likewise a query stopped or
awaited (`q.stop()`, `q.awaitTermination()`) before another starts on its checkpoint is
restarted by it (`sequential`): the two never run at once.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from streamlint.model.records import replace

if TYPE_CHECKING:
    import libcst as cst

    from streamlint.extract.interpreter import Interpreter
    from streamlint.model import Query

# A notebook line `!rm -rf a b`, `%sh rm -r a` or `%fs rm -r a` becomes a call of this.
REMOVE_HOOK = "__streamlint_rm__"
# Databricks, Synapse and Fabric file utilities: `dbutils.fs.rm(path, recurse=True)`.
FS_UTILITIES = ("dbutils.fs", "mssparkutils.fs", "notebookutils.fs")


def record(interp: Interpreter, paths: list[Any], local: bool = False) -> None:
    """Removals of `paths`: through a file utility (`dbutils.fs.rm`, `%fs rm`), or `local`ly
    on the driver (a shell `rm`, `shutil.rmtree`)."""
    if interp.effects.uncertain:
        return  # under a run-time condition: the folder may well be kept
    for path in paths:
        if isinstance(path, str) and path.strip():
            interp.effects.removed.append((len(interp.effects.queries), removed_place(path,
                                                                                     local)))


def remove_hook(interp: Interpreter, args: list[Any], kwargs: dict[str, Any],
                node: cst.Call) -> None:
    record(interp, args, local=kwargs.get("local", True))


Place = tuple[str, str]  # ("fs" | "local", a normalised path)


def removed_place(path: str, local: bool) -> Place:
    """Where a removal takes effect. A file utility works on the cluster's file system
    (`dbfs:/x` and `/x` are one there); a shell `rm` or `shutil.rmtree` on the driver's own
    disk, where only `/dbfs/x` reaches that file system."""
    path = _clean(path)
    if path.startswith("file:"):
        return ("local", _clean(path[len("file:"):]))
    if local:
        if path.startswith("/dbfs/"):
            return ("fs", _clean(path[len("/dbfs"):]))
        return ("local", path)
    if path.startswith("dbfs:"):
        return ("fs", _clean(path[len("dbfs:"):]))
    return ("fs", path)


def checkpoint_places(checkpoint: str) -> set[Place]:
    """Where a checkpoint may be. An absolute path without a scheme is the cluster's file
    system on Databricks and the local disk elsewhere: only a file utility's removal of it
    counts (a local `rm -rf /chk` on a Databricks driver leaves the checkpoint be)."""
    path = _clean(checkpoint)
    if path.startswith("dbfs:"):
        return {("fs", _clean(path[len("dbfs:"):]))}
    if path.startswith("file:"):
        return {("local", _clean(path[len("file:"):]))}
    if path.startswith("/dbfs/"):
        return {("fs", _clean(path[len("/dbfs"):])), ("local", path)}
    if "://" in path or path.startswith("/"):
        return {("fs", path)}
    return {("fs", path), ("local", path)}  # relative: the job's own folder


def _clean(path: str) -> str:
    path = path.strip()
    scheme, sep, rest = path.partition("://")
    if sep:
        return scheme + sep + rest.rstrip("/")
    while "//" in path:
        path = path.replace("//", "/")
    return path.rstrip("/") or "/"


def _under(place: Place, gone: Place) -> bool:
    return place[0] == gone[0] and (place[1] == gone[1]
                                    or place[1].startswith(gone[1].rstrip("/") + "/"))


def generation(removed: list[tuple[int, Place]], index: int, checkpoint: object) -> int:
    """How many removals of `checkpoint` (or of a folder holding it) came before the query
    started `index`-th (0-based) in the run."""
    if not isinstance(checkpoint, str) or not removed:
        return 0
    places = checkpoint_places(checkpoint)
    return sum(1 for before, gone in removed
               if before <= index and any(_under(place, gone) for place in places))


def shell_removal(command: str) -> list[str] | None:
    """The paths of a shell `rm -r ...` (or `%fs rm -r ...`), else None."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    if len(words) < 2 or words[0] != "rm":
        return None
    flags = [w for w in words[1:] if w.startswith("-")]
    paths = [w for w in words[1:] if not w.startswith("-")]
    recursive = any(f in ("-r", "-R", "--recursive") or (
        not f.startswith("--") and ("r" in f or "R" in f)) for f in flags)
    if not recursive or not paths or any(("$" in p or "*" in p) for p in paths):
        return None
    return paths


def sequential(queries: list[Query], ended: dict[int, int]) -> list[Query]:
    """Mark each query (in start order) whose checkpoint an earlier query used and was
    stopped or awaited on before this one started: a restart, not two queries at once."""
    out = list(queries)
    for j, query in enumerate(queries):
        path = query.sink.checkpoint
        if not isinstance(path, str):
            continue
        if any(ended.get(i, j + 1) <= j and isinstance(queries[i].sink.checkpoint, str)
               and checkpoint_places(queries[i].sink.checkpoint) == checkpoint_places(path)
               and queries[i].sink.cleared == query.sink.cleared for i in range(j)):
            out[j] = replace(query, sink=replace(query.sink, restarts=True))
    return out
