"""What libraries' objects do, as tables the interpreter consults: the interpreter knows
Python's statements and expressions, and nothing of PySpark or of the builtins' behaviour.

Knowledge is registered by receiver type (and method name) or by module, the way a linter
registers rules: `pyspark_api` and `python_api` fill these tables when imported, and
`streamlint.extract` imports them before it runs the interpreter. A handler may answer `NEXT`
to hand the value on to the handler of a more general type (the receiver's MRO, then the
fallback), so the order of the old `isinstance` ladders is kept exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.model import Loc, Unknown

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# A handler's "not mine": the next, more general handler decides.
NEXT: Any = object()

Handler = Callable[..., Any]

_attributes: dict[type, Handler] = {}
_methods: dict[tuple[type, str | None], Handler] = {}
_libraries: dict[str, Handler] = {}
_subscripts: dict[type, Handler] = {}
_operators: dict[type, tuple[Handler, Handler]] = {}
_builders: set[type] = set()
_kept: set[type] = set()
_inert: set[type] = set()
_followed: dict[type, tuple[Handler, Handler]] = {}
_differences: dict[type, Handler] = {}
_shapes: dict[type, Handler] = {}
_choosers: dict[type, Handler] = {}


def _walk(value: Any) -> tuple[type, ...]:
    return type(value).__mro__


# -- registering ----------------------------------------------------------------------------


def attribute(*receivers: type) -> Callable[[Handler], Handler]:
    """`handler(interp, target, name, node)` for `target.name` on these receivers."""
    def add(handler: Handler) -> Handler:
        for receiver in receivers:
            _attributes[receiver] = handler
        return handler
    return add


def method(receiver: type, *names: str) -> Callable[[Handler], Handler]:
    """`handler(interp, target, name, args, kwargs, node)` for `target.name(...)`; no names:
    any method of the receiver not registered by name."""
    def add(handler: Handler) -> Handler:
        for name in names or (None,):
            _methods[(receiver, name)] = handler
        return handler
    return add


def library(*modules: str) -> Callable[[Handler], Handler]:
    """`handler(interp, func, args, kwargs, node)` for a call of `module.name(...)`."""
    def add(handler: Handler) -> Handler:
        for module in modules:
            _libraries[module] = handler
        return handler
    return add


def subscript(receiver: type) -> Callable[[Handler], Handler]:
    """`handler(target, key)` for `target[key]` the interpreter cannot answer itself."""
    def add(handler: Handler) -> Handler:
        _subscripts[receiver] = handler
        return handler
    return add


def operators(receiver: type, binary: Handler, unary: Handler) -> None:
    """An operand type with its own operators (a column: `col("a") + 1` is an expression)."""
    _operators[receiver] = (binary, unary)


def builder(*receivers: type) -> None:
    """Objects whose methods change them in place and return them (a writer's `option`)."""
    _builders.update(receivers)


def kept(*receivers: type) -> None:
    """Objects that a run-time choice keeps as the first branch's (a reader)."""
    _kept.update(receivers)


def inert(*receivers: type) -> None:
    """Handles nothing streams through (a pipeline dataset once registered): a guard clause
    may return one early, and the rest of the function is still read."""
    _inert.update(receivers)


def followed(receiver: type, note: Handler, digest: Handler,
             differences: Handler | None = None, shape: Handler | None = None) -> None:
    """Objects followed through one branch of a run-time choice, with `note(value, note)`
    recording that the other may run instead, and `digest(value)` their shape's parts.
    `differences(chosen, other)`, where given, names what the other does differently to the
    same DataFrame (a writer's settings), or None when it is not the same DataFrame.
    `shape(value)`, where given, is the branch as the diff can compare it: (sources,
    operators, output columns, notes, what else it sets), or None."""
    _followed[receiver] = (note, digest)
    if differences is not None:
        _differences[receiver] = differences
    if shape is not None:
        _shapes[receiver] = shape


def chooser(receiver: type, handler: Handler) -> None:
    """`handler(first, second, condition)` for two values of this type that a run-time
    condition chooses between: the one value both branches amount to (two columns of one
    name are that column, whatever it holds), or NEXT for the interpreter's own answer."""
    _choosers[receiver] = handler


# -- dispatching ----------------------------------------------------------------------------


_modules: set[str] = set()
_packages: set[str] = set()
_aliases: dict[str, str] = {}


def modules(*names: str, package: str | None = None, aliases: dict[str, str] | None = None
            ) -> None:
    """A library's modules, known by name (`import pyspark.sql.functions as F` binds a module
    whose names are its functions, not unknown values); every module under `package` too; and
    `aliases`, modules that are another under a second name (Spark Connect's functions)."""
    _modules.update(names)
    if package is not None:
        _packages.add(package)
    _aliases.update(aliases or {})


def canonical(module: str) -> str:
    """The module `module` is, under its registered name (itself unless an alias)."""
    for alias, name in _aliases.items():
        if module == alias or module.startswith(alias + "."):
            return name + module[len(alias):]
    return module


def knows(module: str) -> bool:
    """Whether a module's calls have registered knowledge or the module is a library's by name
    (its names are then its functions, not unknown values)."""
    return module in _libraries or module in _modules


def in_package(module: str) -> bool:
    """Whether a module belongs to a registered library's package (`pyspark.*`)."""
    return any(module == p or module.startswith(p + ".") for p in _packages)


def get_attribute(interp: Interpreter, target: Any, name: str, node: cst.CSTNode) -> Any:
    for cls in _walk(target):
        handler = _attributes.get(cls)
        if handler is not None:
            result = handler(interp, target, name, node)
            if result is not NEXT:
                return result
    return Unknown(interp.code(node))


def call_method(interp: Interpreter, target: Any, name: str, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    for cls in _walk(target):
        for key in ((cls, name), (cls, None)):
            handler = _methods.get(key)
            if handler is not None:
                result = handler(interp, target, name, args, kwargs, node)
                if result is not NEXT:
                    return result
    return Unknown(interp.code(node))


def call_value(interp: Interpreter, func: Any, args: list[Any], kwargs: dict[str, Any],
               node: cst.Call) -> Any:
    """`value(...)` on a value a brain made callable (`method(receiver, "__call__")`): a
    decorator factory's result applied as a call, `dlt.table(name=n)(fn)`."""
    for cls in _walk(func):
        handler = _methods.get((cls, "__call__"))
        if handler is not None:
            result = handler(interp, func, "__call__", args, kwargs, node)
            if result is not NEXT:
                return result
    return Unknown(interp.code(node))


def call_library(interp: Interpreter, func: Any, args: list[Any], kwargs: dict[str, Any],
                 node: cst.Call) -> Any:
    handler = _libraries.get(func.module)
    if handler is not None:
        result = handler(interp, func, args, kwargs, node)
        if result is not NEXT:
            return result
    return Unknown(interp.code(node))


def get_item(target: Any, key: Any) -> Any:
    for cls in _walk(target):
        handler = _subscripts.get(cls)
        if handler is not None:
            result = handler(target, key)
            if result is not NEXT:
                return result
    return NEXT


def operators_of(*values: Any) -> tuple[Handler, Handler] | None:
    for value in values:
        for cls in _walk(value):
            if cls in _operators:
                return _operators[cls]
    return None


def is_builder(value: Any) -> bool:
    return isinstance(value, tuple(_builders))


def is_kept(value: Any) -> bool:
    return isinstance(value, tuple(_kept))


def is_inert(value: Any) -> bool:
    return isinstance(value, tuple(_inert))


def _followed_of(value: Any) -> tuple[Handler, Handler] | None:
    for cls in _walk(value):
        if cls in _followed:
            return _followed[cls]
    return None


def is_followed(value: Any) -> bool:
    return _followed_of(value) is not None


def note(value: Any, text: str, loc: Loc) -> Any:
    found = _followed_of(value)
    return value if found is None else found[0](value, (text, loc))


def differences(chosen: Any, other: Any) -> tuple[tuple[str, Any], ...] | None:
    """What `other` does differently from `chosen` to the same DataFrame, as (label, value)
    pairs, or None when they are not two ways of handling one DataFrame."""
    for cls in _walk(chosen):
        handler = _differences.get(cls)
        if handler is not None and type(other) is type(chosen):
            return handler(chosen, other)
    return None


def shape_of(value: Any) -> tuple[Any, ...] | None:
    """A followed object as the diff can compare it (see `followed`), or None."""
    for cls in _walk(value):
        if cls in _shapes:
            return _shapes[cls](value)
    return None


def choose_between(first: Any, second: Any, condition: str) -> Any:
    """What a registered chooser makes of a run-time choice between two values of one
    type, or NEXT."""
    for cls in _walk(first):
        handler = _choosers.get(cls)
        if handler is not None and type(second) is type(first):
            return handler(first, second, condition)
    return NEXT


def digest_parts(value: Any) -> Any:
    """The parts of a followed object's shape, or NEXT for any other value."""
    found = _followed_of(value)
    return NEXT if found is None else found[1](value)


# -- what a library adds to a run: star imports and the interpreter's events ---------------

_star_names: dict[str, tuple[str, tuple[str, ...]]] = {}
_hooks: dict[str, list[Handler]] = {}


def star_names(names: tuple[str, ...], *modules: str, bound_to: str | None = None) -> None:
    """The names `from <module> import *` binds, as members of `bound_to` (the module itself
    if None); a module not registered binds nothing we can know."""
    for module in modules:
        _star_names[module] = (bound_to or module, tuple(names))


def star_import(module: str) -> tuple[str, tuple[str, ...]] | None:
    return _star_names.get(module)


_former_names: dict[str, dict[str, str]] = {}


def former_names(module: str, renamed: dict[str, str]) -> None:
    """A library's documented renames, former name -> current name: the same function under
    two names (Databricks' `dlt.apply_changes`, now `create_auto_cdc_flow`), so code that
    moves to the new name reads as it did."""
    _former_names.setdefault(module, {}).update(renamed)


def current_name(module: str, name: str) -> str:
    """What `module.name` is called now: `name` unless it is a registered former name."""
    return _former_names.get(module, {}).get(name, name)


def hook(event: str) -> Callable[[Handler], Handler]:
    """A library's part of the run: "start" (`handler(interp)`, before anything runs: the
    library's state for the run goes in `interp.ext`), "decorated" (`handler(interp, stmt,
    function, values, wrapped)`, a `def` with decorators, their values, and what the job's
    own ones made of it) and "module_end" (`handler(interp)`, after the module's body ran)."""
    def add(handler: Handler) -> Handler:
        _hooks.setdefault(event, []).append(handler)
        return handler
    return add


def fire(event: str, *args: Any) -> None:
    for handler in _hooks.get(event, ()):
        handler(*args)


_predefined: dict[str, str] = {}


def predefined(name: str, module: str) -> None:
    """A name a platform defines in every job without an import (a Databricks notebook's
    `display`): a function of `module`, whose calls its `library` handler answers."""
    _predefined[name] = module


def predefined_module(name: str) -> str | None:
    return _predefined.get(name)

_table_readers: list[Handler] = []


def table_reader(handler: Handler) -> Handler:
    """`handler(interp, name, streaming, loc)` for `spark.table(name)`, `readStream.table`: a
    plan when a library defines the dataset (a pipeline's table or view), else `NEXT`."""
    _table_readers.append(handler)
    return handler


def read_table(interp: Interpreter, name: Any, streaming: bool, loc: Loc) -> Any:
    found = (handler(interp, name, streaming, loc) for handler in _table_readers)
    return next((plan for plan in found if plan is not NEXT), NEXT)


_starts_work: list[Callable[[str], bool]] = []


def starts_work(code: str) -> bool:
    """Whether a function nobody in the file calls holds code a library says does work of
    its own when run (PySpark: it starts a stream), so the interpreter runs it anyway: a
    framework or scheduler the file hands it to will."""
    return any(test(code) for test in _starts_work)


def work_starter(test: Callable[[str], bool]) -> Callable[[str], bool]:
    """Register `test(code)`: does a function's code do a library's work when run?"""
    _starts_work.append(test)
    return test


_handed: list[Handler] = []


def handed(handler: Handler) -> Handler:
    """`handler(interp, result, args, kwargs)` for a call of code streamlint cannot follow:
    what it makes of the unknown result given what the code was handed (a file named in its
    arguments, say); the result unchanged when it has nothing to add."""
    _handed.append(handler)
    return handler


def unfollowed_call(interp: Interpreter, result: Unknown, args: list[Any],
                    kwargs: dict[str, Any]) -> Unknown:
    for handler in _handed:
        result = handler(interp, result, args, kwargs)
    return result
