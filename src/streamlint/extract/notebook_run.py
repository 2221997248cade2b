"""A notebook's `%run ./other`, followed: the other notebook's code runs in this namespace.

`%run` executes the other notebook in the caller's namespace (Databricks), or runs a script
and copies its names in (Jupyter), so it reads like `from other import *` at that point.
The front end writes it as `__streamlint_run__("./other")`; the handler here finds the file
(relative to the folder of the notebook that names it; `.py` and `.ipynb` tried when the name
has no extension), reads it through the job's `Project`, and runs its statements in the
current global namespace with its own path and lines for locations. What cannot be followed
(no such file, a workspace path, a file that does not parse, a cycle) is an `Unseen` naming
the `%run`, and the names it would define stay unknown.
"""

from __future__ import annotations

import hashlib
import posixpath
from typing import Any

import libcst as cst

from streamlint.extract import notebook_cells as cells
from streamlint.extract.interpreter import Interpreter
from streamlint.extract.notebook import Converted, SqlCell, convert, relocate
from streamlint.extract.positions import index_module
from streamlint.extract.project import Project
from streamlint.extract.removals import REMOVE_HOOK, remove_hook
from streamlint.extract.script import interpret
from streamlint.extract.spark_values import Native
from streamlint.extract.text import located, mentions_streaming
from streamlint.model import JobFile, Loc, Unknown, Unseen
from streamlint.model.errors import InputError


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class Runs:
    """The `%run`s of one job: what was followed, where, and what was not."""

    def __init__(self, path: str, converted: Converted, project: Project | None) -> None:
        self.project = project
        self.job = path
        self.maps: dict[str, Any] = {path: converted.lines}
        self.sql: list[SqlCell] = list(converted.sql)
        self.unseen: list[Unseen] = list(converted.unseen)
        self.modules: dict[str, str] = {}
        self.running = [path]
        self.streaming = mentions_streaming(converted.source)

    def __call__(self, interp: Interpreter, args: list[Any], kwargs: dict[str, Any],
                 node: Any) -> None:
        where = interp.loc(node)
        target = args[0] if args and isinstance(args[0], str) else ""
        said = f"`%run {target}`"
        if self.project is None:
            return self._miss(where, f"{said} is not followed here (streamlint was given "
                              "this file alone, not its repository)")
        if not target or target.startswith("/"):
            return self._miss(where, f"{said} names a workspace path, not a file of the "
                              "repository")
        shown, found, text = self._find(where.path, target)
        if text is None:
            return self._miss(where, f"{said}: {shown} is not in the repository (tried "
                              f"{', '.join(posixpath.basename(f) for f in found)})")
        if shown in self.running:
            return self._miss(where, f"{said} runs {shown} again while it is running (a "
                              "cycle): streamlint follows it once")
        self.modules[shown] = digest(text)
        try:
            converted = convert(text, shown)
        except InputError as err:
            return self._miss(where, f"{said}: {shown} cannot be read ({err.message})")
        source = converted.source if converted is not None else text
        module, index = _parse(source)
        if module is None:
            return self._miss(where, f"{said}: {shown} is not valid Python")
        if converted is not None:
            self.maps[shown] = converted.lines
            self.sql.extend(converted.sql)
            self.unseen.extend(converted.unseen)
        self.streaming = self.streaming or mentions_streaming(source)
        interp.files.append((shown, index))
        self.running.append(shown)
        try:
            interp.run_block(module.body, interp.globals)
        finally:
            self.running.pop()
        return None

    def _miss(self, where: Loc, what: str) -> None:
        # Placed now, in the file's own lines: the maps of the files met so far are known.
        self.unseen.append(Unseen("notebook", what + "; the names it defines stay unknown",
                                  relocate(where, self.maps)))

    def _find(self, current: str, target: str) -> tuple[str, list[str], str | None]:
        """(the target as shown, the repository paths tried, its text or None)."""
        assert self.project is not None
        job_shown, job_path = self.job, self.project.job
        # The file naming the target, as a repository path: the job itself, or a target
        # already followed (shown relative to the job the same way).
        relative = posixpath.relpath(current, posixpath.dirname(job_shown) or ".")
        here = posixpath.normpath(posixpath.join(posixpath.dirname(job_path), relative))
        wanted = posixpath.normpath(posixpath.join(posixpath.dirname(here), target))
        if target.endswith((".py", ".ipynb")):
            tried = [wanted]
        else:
            tried = [wanted + ".py", wanted + ".ipynb", wanted]
        for path in tried:
            if path.startswith("../"):
                continue
            text = self.project.files.read(path)
            if text is not None:
                return _shown(job_shown, job_path, path), tried, text
        return _shown(job_shown, job_path, tried[0]), tried, None


def _shown(job_shown: str, job_path: str, path: str) -> str:
    """A repository path written the way the job's own path was given."""
    relative = posixpath.relpath(path, posixpath.dirname(job_path) or ".")
    return posixpath.normpath(posixpath.join(posixpath.dirname(job_shown), relative))


def _parse(source: str) -> tuple[Any, Any]:
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return None, None
    return module, index_module(module)


def extract_notebook(text: str, path: str, converted: Converted,
                     project: Project | None) -> JobFile:
    """A notebook's queries, its `%run`s followed, what it does not show as `Unseen` (one
    with no streaming and no `%run` is read without the interpreter: `extract_text`)."""
    runs = Runs(path, converted, project)

    def prepare(interp: Interpreter) -> None:
        interp.globals.names[cells.RUN_HOOK] = Native("%run", runs)
        interp.globals.names[REMOVE_HOOK] = Native("rm", remove_hook)
        interp.globals.names[cells.MAGIC_VALUE] = Unknown("a magic command's output")

    read = located(interpret, converted.lines, path, converted.source, prepare, project)
    queries, found = relocate((read.queries, read.unseen), runs.maps)
    streaming = bool(queries) or runs.streaming
    unseen = [cell.unseen() for cell in runs.sql if cell.call is None
              and (cell.streaming or (streaming and not cell.read_only))]
    unseen.extend(runs.unseen)
    unseen.extend(found)
    modules = dict(read.modules)
    modules.update(runs.modules)
    return JobFile(path, text, queries, tuple(unseen), tuple(sorted(modules.items())),
                   read.batch_datasets, read.pipeline_api, read.commented_modules,
                   sources=read.sources)
