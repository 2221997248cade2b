"""The symbolic values the interpreter computes with while it reads a job file.

Plain Python values stand for themselves (str, int, float, bool, None, tuple, dict). These
classes stand for the PySpark objects a job builds; they never leave the extract package.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.model import (
    Condition,
    Loc,
    Overridable,
    Setting,
    Source,
    Unknown,
)
from streamlint.model.paths import in_repository
from streamlint.model.records import factory, record

if TYPE_CHECKING:
    from streamlint.extract.positions import ModuleIndex
    from streamlint.extract.spark_values import Writer


@record(frozen=False)
class Function:
    """A function or method defined in the file, with the names it closes over."""

    node: cst.FunctionDef
    env: Env
    owner: Instance | None = None
    defaults: dict[str, Any] | None = None  # evaluated where the def ran, as Python does
    context: ModuleContext | None = None  # the module it was defined in (None: the job's)


@record(frozen=False)
class Lambda:
    """A lambda defined in the file."""

    node: cst.Lambda
    env: Env
    defaults: dict[str, Any] = factory(dict)


@record(frozen=False)
class Class:
    """A class defined in the file: its attributes and methods."""

    node: cst.ClassDef
    env: Env
    attributes: dict[str, Any] = factory(dict)
    methods: dict[str, cst.FunctionDef] = factory(dict)
    method_defaults: dict[str, dict[str, Any]] = factory(dict)
    bases: list[Class] = factory(list)
    context: ModuleContext | None = None  # the module it was defined in (None: the job's)


@record(frozen=False)
class Instance:
    """An object of a class defined in the file (a job class, a config record)."""

    cls: Class
    attributes: dict[str, Any] = factory(dict)


@record
class ModuleRef:
    """An imported module we know the meaning of (pyspark.sql.functions, os, ...)."""

    name: str


@record
class PathValue:
    """A `pathlib.Path(p)`, or `__file__`, and what `os.path.dirname` / `join` and `/` make
    of them. Opened, it is a file of the job's repository (extract/config_files.py).
    `anchored`: the path is relative to the repository root (made from `__file__`), so where
    it lies on the cluster, its text as a value, is not known."""

    path: str
    anchored: bool = False

    def moved(self, path: str) -> PathValue:
        return PathValue(path, self.anchored)

    def text(self) -> Any:
        """What `str(path)` is."""
        return in_repository(self.path) if self.anchored else self.path


@record
class FunctionRef:
    """A function of a known module, e.g. `pyspark.sql.functions.window`."""

    module: str
    name: str


# The default of an environment lookup, a widget or an argument: the value unless the
# deployment says otherwise. It reads as its text everywhere, but a condition on it
# (`if ENV == "prod"`) is only known at run time, so both branches are read.
EnvDefault = Overridable


class Items(tuple):  # type: ignore[type-arg]
    """A list the job built (`[]`, `[df]`, a list comprehension, `list(x)`): a tuple, so it
    never changes under a reader's feet, with an identity of its own even when empty. Its
    versions share one `Box`, which holds the latest: a change in place makes a new version
    (`InPlace.forward`), and every holder of an older one (an alias, a closure, an attribute,
    a dict's item, `*args`) reads the latest (`InPlace.latest`)."""

    box: Box | None = None


class Box(dict):  # type: ignore[type-arg]
    """Where a list's latest version is (`box["now"]`): a dict, so that a branch's change is
    a heap write like an attribute's, undone before the next branch runs (extract/heap.py)."""


@record(frozen=False)
class Alternatives:
    """Functions, lambdas, classes or instances a run-time condition chooses between
    (`agg = by_key if mode == "k" else by_value`). Calling one, or a method of one, runs each
    of them; the first's DataFrame is followed and the others' are noted (symbolic.choose),
    so a change in any of them is seen."""

    options: tuple[Any, ...]
    condition: str
    loc: Loc


@record(frozen=False)
class Partial:
    """functools.partial(func, *args, **kwargs)."""

    func: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@record
class BoundMethod:
    """A method looked up on a symbolic object, waiting to be called."""

    target: Any
    name: str


class ModuleContext:
    """One module the interpreter reads: the job itself, or a repository module it imports.

    Code defined in a module carries its context, so what it builds is located in its own
    file (`path`, as reports show it) and `global` statements reach its own namespace.
    Compared by identity: two contexts are the same module only if they are one object.
    """

    def __init__(self, path: str, name: str, module: cst.Module, index: ModuleIndex,
                 globals_: Env, relpath: str | None = None) -> None:
        self.path = path  # as Locs show it
        self.name = name  # its dotted name (`__name__`): "__main__" for the job
        self.module = module
        self.index = index
        self.globals = globals_
        self.relpath = relpath  # root-relative POSIX path, for a module of the repository
        self.loading = False  # its top level is still running (an import cycle meets it so)

    def __repr__(self) -> str:
        return f"ModuleContext({self.name!r}, {self.path!r})"


@record
class RepoModule:
    """An imported module of the repository (or a folder of one, a namespace package)."""

    name: str
    context: ModuleContext | None  # None: a package folder without __init__.py
    folder: str | None = None  # root-relative folder of its package, for submodules


class Env:
    """Names visible at one point: a function's locals over its defining module's globals."""

    def __init__(self, parent: Env | None = None) -> None:
        self.names: dict[str, Any] = {}
        self.parent = parent
        self.global_names: set[str] = set()  # declared `global` in this function
        # A function's parameters still bound to what the caller passed (position, or
        # keyword), and those changed in place (`outs.append(df)`, `writer.format(...)`):
        # lists and builders are immutable values here, so the caller gets the change back
        # when the call ends (extract/calls.py).
        self.params: dict[str, int | str] = {}
        self.mutated: set[str] = set()

    def lookup(self, name: str) -> Any:
        env: Env | None = self
        while env is not None:
            if name in env.names:
                return env.names[name]
            env = env.parent
        raise KeyError(name)


@record(frozen=False)
class Effects:
    """What reading a file found besides values: started queries and session settings."""

    queries: list[Writer] = factory(list)
    settings: list[Setting] = factory(list)
    # For failing closed (`extract/coverage.py`): every streaming source and writer built,
    # the sources a sink that is not a restartable query consumed (display() without a
    # checkpoint), and the `readStream`/`writeStream` attributes the run reached.
    streams: list[Source] = factory(list)
    writers: dict[Loc, str] = factory(dict)
    consumed: set[Loc] = factory(set)
    alternatives: set[Loc] = factory(set)  # writers started in a run-time branch not kept
    # source -> the code it went into unfollowed, and a fingerprint of what that code got
    escaped: dict[Loc, tuple[str, str]] = factory(dict)
    escaped_writers: dict[Loc, tuple[str, str]] = factory(dict)  # likewise, for writers
    # Each operator applied (by id: one line of a helper called twice makes two; the operator
    # is kept with it, so that its id is not another's later): the calls the run was inside
    # when it was applied (`Query.made_through`)
    made_through: dict[int, tuple[object, tuple[Loc, ...]]] = factory(dict)
    reached: set[int] = factory(set)
    # (queries started before, folder) of each folder the run deletes (extract/removals.py)
    removed: list[tuple[int, tuple[str, str]]] = factory(list)
    # query index -> queries started before it was stopped or awaited
    ended: dict[int, int] = factory(dict)
    # > 0 while code runs that may not run at all (a branch of a run-time condition, a loop
    # over values not known): a removal or a stop there is not certain, so not recorded
    uncertain: int = 0
    # > 0 while the body of a `with` runs: its context manager may swallow what the body
    # raises, so a call there that always fails is not certain to stop the run.
    shielded: int = 0
    # The read that raised on every path, once one did (extract/unset.py): no query started
    # after it ever starts. (model.Failure, where)
    failed: tuple[Any, Loc] | None = None
    # id(`df.name` node) -> (the DataFrame, name) for a name no supported pyspark has on a
    # DataFrame: a column reference, unless the node is called (pyspark_api/missing.py).
    missing: dict[int, tuple[Any, str]] = factory(dict)
    # The run-time conditions of the branches being read (`if mode == "A":`), innermost last.
    conditions: list[Condition] = factory(list)
    # The function nothing in the file calls that is being run (`run_entry_points`), "" on
    # the module's own path.
    entry: str = ""
    # Writes that outlive a branch's names: attributes, dict items, globals (a guard clause
    # that made any is not read past, extract/statements.py).
    heap_writes: int = 0
    # After a guard clause: (place, key, the value it replaced) per such write.
    heap_log: list[tuple[Any, Any, Any]] = factory(list)

    def set_aside(self, writer: Writer) -> None:
        """A query started in a run-time branch not kept: the kept one's alternative, its
        sources consumed and its writer seen (not lost, not reported as unread)."""
        self.consumed.update(source.loc for source in writer.plan.sources)
        self.alternatives.add(writer.loc)


@contextmanager
def shield(effects: Effects) -> Iterator[None]:
    """Run a `with` body: what it raises may be swallowed by its context manager."""
    effects.shielded += 1
    try:
        yield
    finally:
        effects.shielded -= 1


__all__ = ["Unknown"]
