"""What Python's builtins and standard library do, for the interpreter (via `registry`):
`str`, `len`, `zip`, `functools.reduce`, `os.getenv`, `os.path.join`, a string's and a
dict's methods. Each is computed only when its arguments are known; otherwise the call is an
`Unknown` naming its code.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import config_files, registry, templates
from streamlint.extract.budget import MAX_VALUE
from streamlint.extract.removals import record
from streamlint.extract.spark_values import Native
from streamlint.extract.symbolic import ABSENT, digest, length_unknown
from streamlint.extract.values import EnvDefault, FunctionRef, Items, ModuleRef, Partial, PathValue
from streamlint.model import Origin, OverridableNumber, Unknown, keep_origins, origins_of

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


@registry.library("builtins", "functools")
def call_builtins(interp: Interpreter, func: FunctionRef, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    # These need the interpreter itself: the method's class, an attribute, a call.
    if func.name == "super":
        return interp.super_object()
    if func.name == "getattr" and len(args) >= 2 and isinstance(args[1], str):
        return interp.attribute(args[0], args[1], node)
    if func.name == "partial" and args:
        return Partial(args[0], tuple(args[1:]), dict(kwargs))
    if func.name == "update_wrapper" and args:
        return args[0]  # the wrapper, with the wrapped function's name: the wrapper runs
    if func.name == "wraps" and args:
        # `functools.wraps(fn)(wrapper)`: the wrapper, as under `@functools.wraps(fn)`.
        return Native("wraps", lambda _interp, a, _k, _n: a[0] if a else Unknown("wraps"))
    if func.name == "reduce" and len(args) >= 2 and isinstance(args[1], tuple):
        items = list(args[1]) if len(args) == 2 else [args[2], *args[1]]
        if not items:
            return Unknown(interp.code(node))
        result = items[0]
        for item in items[1:]:
            result = interp.call(args[0], [result, item], {}, node)
        return result
    if func.module == "builtins":
        return call_builtin(interp, func.name, args, kwargs, node)
    return registry.NEXT


@registry.library("os", "os.environ")
def call_os(interp: Interpreter, func: FunctionRef, args: list[Any], kwargs: dict[str, Any],
            node: cst.Call) -> Any:
    if func.name in ("getenv", "get"):
        key = args[0] if args else kwargs.get("key")
        default = args[1] if len(args) > 1 else kwargs.get("default")
        loaded = interp.dotenv.get(key) if isinstance(key, str) else None
        if loaded is not None and not isinstance(default, str):
            default = loaded  # python-dotenv's file: the environment's own value wins
        if isinstance(default, str):
            name = key if isinstance(key, str) else interp.code(node)
            return EnvDefault(default, (*origins_of(default),
                                        (f"environment variable {name}", str(default))))
        if default is not None:
            return default
        return Unknown(interp.code(node), origin=Origin("environment", key) if isinstance(
            key, str) else None)
    return registry.NEXT


@registry.subscript(ModuleRef)
def environment_item(target: ModuleRef, key: Any) -> Any:
    """`os.environ["TOPIC"]`: the variable, the same value as `os.getenv("TOPIC")`."""
    if target.name == "os.environ" and isinstance(key, str):
        return Unknown(f"os.environ[{key!r}]", origin=Origin("environment", key))
    return registry.NEXT


@registry.library("shutil")
def call_shutil(interp: Interpreter, func: FunctionRef, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    if func.name == "rmtree":
        record(interp, args[:1] or [kwargs.get("path")], local=True)
        return None
    return registry.NEXT


@registry.library("os.path", "posixpath")
def call_path(interp: Interpreter, func: FunctionRef, args: list[Any], kwargs: dict[str, Any],
              node: cst.Call) -> Any:
    if isinstance(args[0] if args else None, PathValue):
        first = args[0].path
        if func.name == "join" and all(isinstance(a, str) for a in args[1:]):
            return args[0].moved(posixpath.join(first, *args[1:]))
        if func.name == "dirname":
            return args[0].moved(posixpath.dirname(first))
        if func.name in ("abspath", "realpath", "normpath"):
            return args[0]
    if func.name == "join" and args:
        if all(isinstance(a, str) for a in args):
            # Jobs run on POSIX clusters, whatever the laptop is.
            return keep_origins(posixpath.join(*args), args)
        joined = templates.path_join(args)
        if joined is not None:
            return joined
    if len(args) == 1 and isinstance(args[0], str) and (func.name in (
            "dirname", "basename", "normpath") or args[0].startswith("/") and func.name in (
            "abspath", "realpath")):
        # A relative path's absolute form depends on the working directory: not known.
        done = {"dirname": posixpath.dirname, "basename": posixpath.basename}.get(
            func.name, posixpath.normpath)(args[0])
        return keep_origins(done, args)
    return registry.NEXT


@registry.library("dataclasses")
def call_dataclasses(interp: Interpreter, func: FunctionRef, args: list[Any],
                     kwargs: dict[str, Any], node: cst.Call) -> Any:
    if func.name == "field":
        # A dataclass field's default is what an instance built without it holds.
        if "default" in kwargs:
            return kwargs["default"]
        if "default_factory" in kwargs:
            return interp.call(kwargs["default_factory"], [], {}, node)
    return registry.NEXT


def _str(value: Any) -> Any:
    """`str(value)` where it is known; a run-time value is itself (`str(output_mode)` is the
    same value wherever a string is read: Spark's options and modes are strings)."""
    if isinstance(value, str | int | float | bool | tuple):
        return keep_origins(str(value), [value])
    if isinstance(value, PathValue):
        return value.text()
    return value if isinstance(value, Unknown) else None


def call_builtin(
    interp: Interpreter, name: str, args: list[Any], kwargs: dict[str, Any], node: cst.Call
) -> Any:
    value = args[0] if args else None
    if name == "open":
        return config_files.open_file(interp, args, kwargs, node)
    if name == "str" and len(args) == 1 and not kwargs:
        found = _str(value)
        if found is not None:
            return found
    if name == "int" and isinstance(value, str | int | float):
        try:
            number = int(value)
        except ValueError:
            pass
        else:  # `int(os.getenv("MINUTES", "10"))`: still the deployment's default
            return OverridableNumber(number, origins_of(value)) if origins_of(value) else number
    if name == "dict":
        if isinstance(value, tuple) and all(
                isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str | int)
                for pair in value):
            value = dict(value)  # `dict(zip(names, outs))`
        if args and not isinstance(value, dict):
            return Unknown(f"{interp.code(node)} (#{digest(value)})", shown=interp.code(node))
        result = dict(value) if isinstance(value, dict) else {}
        result.update(kwargs)
        return result
    if name == "list" and isinstance(value, tuple):
        return Items(value)  # a copy: a list of its own
    if name == "tuple" and isinstance(value, tuple):
        return tuple(value)
    if name == "sum":
        return _sum(interp, args, kwargs, node)
    if name == "sorted" and isinstance(value, tuple):
        try:
            return Items(sorted(value))
        except TypeError:
            pass
    if name == "len" and isinstance(value, tuple | str | dict):
        if isinstance(value, tuple) and length_unknown(value):
            return Unknown(f"{interp.code(node)} (#{digest(value)})", shown=interp.code(node))
        return len(value)
    # Loops over `enumerate(TOPICS)` or `zip(TOPICS, PATHS)` start one query per item.
    if name == "enumerate" and isinstance(value, tuple | dict):
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        if isinstance(start, int):
            return tuple((start + i, item) for i, item in enumerate(tuple(value)))
    if name == "zip" and args and all(isinstance(a, tuple | dict) for a in args):
        return tuple(zip(*(tuple(a) for a in args), strict=False))
    if name == "range" and 1 <= len(args) <= 3 and all(
            isinstance(a, int) and not isinstance(a, bool) for a in args):
        numbers = range(*args)
        if len(numbers) <= 1000:
            return tuple(numbers)
    return Unknown(interp.code(node))


def _sum(interp: Interpreter, args: list[Any], kwargs: dict[str, Any], node: cst.Call) -> Any:
    """`sum(numbers)`, and `sum(groups, [])`: the lists joined, each as changed in place
    since it was put in."""
    value = args[0] if args else None
    if len(args) == 2 and isinstance(args[1], tuple) and isinstance(
            value, tuple) and all(isinstance(interp.latest(part), tuple) for part in value):
        joined: tuple[Any, ...] = args[1]
        for part in value:
            joined += interp.latest(part)
        return Items(joined)
    numbers = (*value, *args[1:2]) if isinstance(value, tuple) else None
    if numbers is not None and all(isinstance(n, int | float) and not isinstance(n, bool)
                                   for n in numbers):
        return sum(numbers)
    return Unknown(f"{interp.code(node)} (#{digest((args, kwargs))})",
                   shown=interp.code(node))


@registry.method(str)
def string_call(interp: Interpreter, target: str, name: str, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "format" and all(isinstance(a, str | int | float)
                                for a in (*args, *kwargs.values())):
        try:
            return target.format(*args, **kwargs)
        except (IndexError, KeyError, ValueError):
            pass
    if name == "format":
        formatted = templates.str_format(target, args, kwargs)
        if formatted is not None:
            return formatted
    if name == "join" and args and isinstance(args[0], tuple) and all(
            isinstance(a, str) for a in args[0]):
        joined = target.join(args[0])
        return joined if len(joined) <= MAX_VALUE else Unknown(interp.code(node))
    if name == "join" and args and not kwargs:
        built = templates.sep_join(target, args[0])
        if built is not None:
            return built
    if name in ("upper", "lower", "strip") and not args:
        return getattr(target, name)()
    if name == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
        replaced = target.replace(args[0], args[1])
        return replaced if len(replaced) <= MAX_VALUE else Unknown(interp.code(node))
    return Unknown(interp.code(node))


@registry.method(tuple, "copy")
def list_copy(interp: Interpreter, target: tuple[Any, ...], name: str, args: list[Any],
              kwargs: dict[str, Any], node: cst.Call) -> Any:
    """`outs.copy()`: a list of its own, holding what `outs` holds now."""
    return Items(target)


@registry.method(dict, "get", "items", "keys", "setdefault", "values")
def dict_call(interp: Interpreter, target: dict, name: str, args: list[Any],
              kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "get":
        key = args[0] if args else None
        return target.get(key, args[1] if len(args) > 1 else None)
    if name == "setdefault":
        key = args[0] if args else None
        if key in target or not isinstance(key, str | int):
            return target.get(key, Unknown(interp.code(node)))
        interp.heap_write(target, key, ABSENT)
        target[key] = args[1] if len(args) > 1 else None
        return target[key]
    if name == "items":
        return tuple(target.items())
    if name == "keys":
        return tuple(target)
    return tuple(target.values())


@registry.attribute(str, int)
def enum_value(interp: Interpreter, target: Any, name: str, node: cst.CSTNode) -> Any:
    if name == "value":
        # A plain string has no `.value`: this is an Enum member (`Topic.ORDERS.value`), whose
        # class body assigned it the value itself.
        return target
    return registry.NEXT
