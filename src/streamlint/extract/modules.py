"""Following imports of the repository's own modules (`from jobs.io import build_writer`).

A module of the repository that a job imports is read like the job: its top level runs once
per extraction, in its own namespace (`__name__` is its dotted name, so its `__main__` block
does not run), and the imported names bind to its values. Its functions and classes carry
their module (`ModuleContext`), so what they build is located in their own file.

Where modules are looked for: the job's own folder (as `python job.py` has it on `sys.path`),
then the project's source roots (the repository root and `src/` unless configured). The
standard library and pyspark are never looked up in the repository; a module found nowhere
is outside the repository (a pip package, a company library) and stays unknown, as before.

A module of the repository that cannot be followed (a syntax error, an import cycle that
reaches a name before it is defined, too deep a chain of imports) leaves its names unknown
and an `Unseen(about="module")` record naming the import: never a silent gap.

The API other front ends use (a notebook's `%run ./config` runs another file's statements in
the current namespace):

- `context_of(interp, path, text, name, globals_)` parses a file into a `ModuleContext`
  whose code is located in `path` and whose names live in `globals_` (or None when it cannot
  be parsed);
- `run_in(interp, context, env)` runs that context's top level with `env` as its namespace.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract.bindings import module_ref
from streamlint.extract.imports import (
    MAX_MODULES,
    is_outside,
    join,
    module_files,
    package_folder,
    search_roots,
)
from streamlint.extract.positions import index_module
from streamlint.extract.values import Env, ModuleContext, PathValue, RepoModule
from streamlint.model import Loc, Unknown, Unseen

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter
    from streamlint.extract.project import Project

MAX_IMPORT_DEPTH = 16  # modules importing modules, from the job down
# Parsed modules by the digest of their text, for every extraction in this process: a helper
# shared by many jobs is parsed once per worker (libcst trees are immutable).
_PARSED: dict[str, tuple[cst.Module, Any]] = {}
_PARSED_LIMIT = 256


def digest(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def parse(text: str) -> tuple[cst.Module, Any]:
    """A module's tree and position index (cached by text); ParserSyntaxError if it is not
    Python."""
    key = digest(text)
    parsed = _PARSED.get(key)
    if parsed is None:
        module = cst.parse_module(text)
        parsed = (module, index_module(module))
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = parsed
    return parsed


def context_of(interp: Interpreter, path: str, text: str, name: str,
               globals_: Env | None = None) -> ModuleContext | None:
    """A file as a module the interpreter can run, located in `path`; None if unparsable."""
    try:
        module, index = parse(text)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    if globals_ is None:
        globals_ = Env()
        globals_.names["__name__"] = name
    context = ModuleContext(path, name, module, index, globals_)
    interp.contexts.append(context)
    return context


def run_in(interp: Interpreter, context: ModuleContext, env: Env | None = None) -> None:
    """Run a module's top level with `env` (default: its own globals) as its namespace."""
    caller = interp.context
    interp.context = context
    try:
        interp.run_block(context.module.body, env if env is not None else context.globals)
    finally:
        interp.context = caller


class Loader:
    """Follows one extraction's imports into the repository's modules (one per job version)."""

    def __init__(self, project: Project, path: str) -> None:
        self.project = project
        self.roots = search_roots(project.job, project.source_roots)
        # Locations in a helper are shown like the job's own path: `HEAD~1:jobs/io.py` when
        # the job is `HEAD~1:jobs/orders.py`, `/tmp/a/jobs/io.py` for `/tmp/a/jobs/job.py`.
        self.prefix = path[: -len(project.job)] if path.endswith(project.job) else ""
        self.contexts: dict[str, ModuleContext | None] = {}  # None: could not be followed
        self.followed: dict[str, str] = {}  # root-relative path -> digest of its text
        self.streaming = False  # a module followed builds streams or writers itself
        self.unseen: list[Unseen] = []
        self.texts: dict[str, str | None] = {}
        self.stack: list[str] = []
        # The Databricks bundle that runs the job (extract/bundles.py): None until the code
        # reads a parameter, False when there is none.
        self.deployment: Any = None

    # -- what extraction records ------------------------------------------------------------

    def modules(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(self.followed.items()))

    def sources(self) -> tuple[tuple[str, str, str], ...]:
        """Every file of the repository the job's code was followed into (modules and the
        configuration files it read): (path, shown, text)."""
        return tuple((path, self.prefix + path, text) for path in sorted(self.followed)
                     for text in [self.texts.get(path)] if text is not None)

    def commented(self) -> tuple[tuple[str, str, str], ...]:
        """The modules followed that hold a suppression comment: (path, shown, text)."""
        return tuple((path, self.prefix + path, text) for path in sorted(self.followed)
                     for text in [self.texts.get(path)]
                     if text and "streamlint" in text and "ignore" in text)

    def _note(self, what: str, loc: Loc) -> None:
        unseen = Unseen("module", what, loc)
        if unseen not in self.unseen:
            self.unseen.append(unseen)

    # -- finding files ----------------------------------------------------------------------

    def read(self, path: str) -> str | None:
        if path not in self.texts:
            self.texts[path] = self.project.files.read(path)
        return self.texts[path]

    def find(self, dotted: str, folder: str | None = None) -> tuple[str, str] | None:
        """(file, folder it was found under) of a module: absolute when `folder` is None,
        else below `folder` (a relative import, a submodule of a package)."""
        parts = dotted.split(".")
        for start in (folder,) if folder is not None else self.roots:
            for candidate in module_files(join(start, *parts)):
                if self.read(candidate) is not None:
                    return candidate, start
        return None

    # -- loading --------------------------------------------------------------------------

    def load(self, interp: Interpreter, path: str, name: str, loc: Loc) -> ModuleContext | None:
        """A module's context, its top level run once (a module mid-way through its top level
        comes back as it is, as in Python's import cycles)."""
        if path in self.contexts:
            return self.contexts[path]
        text = self.read(path)
        if text is None:
            return None
        self.followed[path] = digest(text)
        if "writeStream" in text or "readStream" in text:
            self.streaming = True
        shown = self.prefix + path
        if len(self.stack) >= MAX_IMPORT_DEPTH or len(self.contexts) >= MAX_MODULES:
            self.contexts[path] = None
            self._note(f"the module `{name}` ({shown}) is more than {MAX_IMPORT_DEPTH} imports "
                       f"deep or past {MAX_MODULES} modules; streamlint did not follow it, so "
                       "what it defines is unknown", loc)
            return None
        context = context_of(interp, shown, text, name)
        if context is None:
            self.contexts[path] = None
            self._note(f"the module `{name}` ({shown}) is not valid Python{_syntax_error(text)}"
                       "; what it defines is unknown", loc)
            return None
        context.relpath = path
        context.globals.names["__file__"] = PathValue(path, anchored=True)
        context.loading = True
        self.contexts[path] = context
        self.stack.append(path)
        try:
            run_in(interp, context)
        finally:
            self.stack.pop()
            context.loading = False
        return context

    def package(self, interp: Interpreter, folder: str, name: str, loc: Loc) -> RepoModule:
        """A package folder as a module: its `__init__.py` run if it has one."""
        init = f"{folder}/__init__.py".lstrip("/")
        context = self.load(interp, init, name, loc) if self.read(init) is not None else None
        return RepoModule(name, context, folder)

    def module_value(self, interp: Interpreter, path: str, name: str, loc: Loc) -> Any:
        context = self.load(interp, path, name, loc)
        if context is None:
            return Unknown(name)
        folder = posixpath.dirname(path) if path.endswith("/__init__.py") else None
        return RepoModule(name, context, folder)

    # -- the interpreter's hooks -------------------------------------------------------------

    def run_import(self, interp: Interpreter, stmt: cst.Import | cst.ImportFrom,
                   env: Env) -> bool:
        """Bind an import statement's names if it imports from the repository; False leaves
        it to the interpreter (pyspark, the standard library, packages outside)."""
        if isinstance(stmt, cst.Import):
            return self._import(interp, stmt, env)
        level = len(stmt.relative)
        dotted = interp.code(stmt.module) if stmt.module is not None else ""
        if level == 0 and (not dotted or is_outside(dotted)):
            return False
        loc = interp.loc(stmt)
        if level:
            folder = package_folder(interp.context.relpath or self.project.job, level)
            if folder is None:
                return False
            starts: tuple[str, ...] = (folder,)
            found = self.find(dotted, folder) if dotted else None
            name = _dotted(found[0]) if found else _dotted(join(folder, *dotted.split(".")) +
                                                           "/__init__.py")
        else:
            starts = self.roots
            found = self.find(dotted)
            name = dotted
        if found is not None:
            base: Any = self.module_value(interp, found[0], name, loc)
        else:
            # A package folder without `__init__.py` (or `from . import x`): its imported
            # names are its submodules.
            names = [] if isinstance(stmt.names, cst.ImportStar) else [
                interp.code(alias.name) for alias in stmt.names]
            folder = next((join(start, *dotted.split(".")) for start in starts
                           for sub in names if self.find(sub, join(start, *dotted.split(".")))),
                          None)
            if folder is None:
                return False
            base = self.package(interp, folder, name, loc)
        if isinstance(stmt.names, cst.ImportStar):
            context = base.context if isinstance(base, RepoModule) else None
            if context is not None:
                listed = context.globals.names.get("__all__")
                names = (listed if isinstance(listed, tuple) and all(
                    isinstance(n, str) for n in listed) else
                    [n for n in context.globals.names if not n.startswith("_")])
                for name in names:
                    env.names[name] = context.globals.names.get(name, Unknown(name))
            return True
        for alias in stmt.names:
            name = interp.code(alias.name)
            bound = alias.asname.name.value if alias.asname else name  # type: ignore[union-attr]
            env.names[bound] = self.member(interp, base, name, stmt, loc) if isinstance(
                base, RepoModule) else Unknown(name)
        return True

    def _import(self, interp: Interpreter, stmt: cst.Import, env: Env) -> bool:
        loc = interp.loc(stmt)
        handled = False
        for alias in stmt.names:
            full = interp.code(alias.name)
            found = None if is_outside(full) else self.find(full)
            top = full.split(".")[0]
            if found is None:  # as the interpreter binds it
                if alias.asname is not None:
                    env.names[alias.asname.name.value] = module_ref(full)  # type: ignore[union-attr]
                else:
                    env.names[top] = module_ref(top)
                continue
            handled = True
            value = self.module_value(interp, found[0], full, loc)
            if alias.asname is not None:
                env.names[alias.asname.name.value] = value  # type: ignore[union-attr]
            elif "." not in full:
                env.names[top] = value
            else:  # `import a.b.c` binds `a`, whose attributes reach `b` and then `c`
                env.names[top] = self.package(interp, join(found[1], top), top, loc)
        return handled

    def member(self, interp: Interpreter, module: RepoModule, name: str,
               node: cst.CSTNode, loc: Loc | None = None) -> Any:
        """`module.name`: a name its top level defined, else a submodule of its package."""
        context = module.context
        if context is not None and name in context.globals.names:
            return context.globals.names[name]
        if module.folder is not None:
            found = self.find(name, module.folder)
            if found is not None:
                return self.module_value(interp, found[0], f"{module.name}.{name}",
                                         loc or interp.loc(node))
        if context is not None and context.loading:
            # An import cycle: Python would fail here (the name is not defined yet).
            self._note(f"`{name}` is imported from `{module.name}` ({context.path}) while that "
                       "module is still being imported (an import cycle), before it defines "
                       f"`{name}`; its value is unknown", loc or interp.loc(node))
        return Unknown(f"{module.name}.{name}")


def _dotted(path: str) -> str:
    """`jobs/io.py` -> `jobs.io`, `jobs/common/__init__.py` -> `jobs.common` (as `__name__`)."""
    if path.endswith("/__init__.py"):
        path = path[: -len("/__init__.py")]
    elif path.endswith(".py"):
        path = path[:-3]
    return path.replace("/", ".")


def _syntax_error(text: str) -> str:
    import ast

    try:
        ast.parse(text)
    except SyntaxError as err:
        return f" (line {err.lineno}: {err.msg})"
    except (ValueError, RecursionError, MemoryError):
        pass
    return ""
