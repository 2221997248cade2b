"""Where a function is called, and what a call passes for a parameter (at_change.py).

A finding inside `def read(spark, topic): ... .option("subscribe", topic)` is caused by what a
caller passes for `topic`: the changed argument at one of `read`'s call sites. These are the
plain-syntax facts that search needs: a file's functions (and whether each is a method), the
calls of a function by name, the argument a call binds to a parameter, and the names a
file's imports bind (where a function called by another name comes from).
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Defined:
    """A function of a file: its node and whether it is a method of a class (its first
    parameter is the instance when it is called as `obj.name(...)`)."""

    node: Function
    method: bool


class NotKnown(Exception):
    """A call whose argument for a parameter cannot be told from its syntax (`*args`)."""


def parameters(function: Function) -> list[str]:
    """The names a function's parameters bind, in order."""
    args = function.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def all_calls(tree: ast.Module) -> list[ast.Call]:
    """Every call of a file, in `ast.walk`'s order (read once a file: `calls` picks among
    them for each function looked for)."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def calls(found: list[ast.Call], name: str, by_name: bool) -> list[ast.Call]:
    """The calls of `name` among a file's calls (`all_calls`): `obj.name(...)`, and
    `name(...)` when `by_name` (in the file defining it, or one importing it)."""
    return [node for node in found
            if (isinstance(node.func, ast.Attribute) and node.func.attr == name)
            or (by_name and isinstance(node.func, ast.Name) and node.func.id == name)]


def argument(call: ast.Call, defined: Defined, parameter: str) -> ast.expr | None:
    """What `call` passes for `parameter`; None when it passes nothing (the default holds).

    Raises NotKnown when a `*args` or `**kwargs` of the call may hold it."""
    args = defined.node.args
    if parameter in (a.arg for a in (args.vararg, args.kwarg) if a is not None):
        raise NotKnown(parameter)
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    built = defined.node.name == "__init__" and not (
        isinstance(call.func, ast.Attribute) and call.func.attr == "__init__")
    if defined.method and positional and built:
        if parameter == positional[0]:
            return None  # `Pipeline(spark, "orders")`: `self` is the object it makes
        positional = positional[1:]
    elif defined.method and isinstance(call.func, ast.Attribute) and positional:
        if parameter == positional[0]:
            return call.func.value  # `pipeline.run()`: `self` is pipeline
        positional = positional[1:]  # `self` is the object the method is called on
    index = positional.index(parameter) if parameter in positional else None
    for n, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) and (index is None or n <= index):
            raise NotKnown(parameter)
    if index is not None and index < len(call.args):
        return call.args[index]
    if any(keyword.arg is None for keyword in call.keywords):
        raise NotKnown(parameter)
    return None


def default(function: Function, parameter: str) -> ast.expr | None:
    """The default value a function's definition gives `parameter`, if any."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    given = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                     args.defaults, strict=True))
    given.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                 if d is not None)
    return given.get(parameter)


def import_bindings(statements: list[ast.stmt], relpath: str) -> dict[str, tuple[str, str | None]]:
    """Each name a file's imports bind: (the module, the member taken from it or None for
    the module itself); a relative import's module as a root-relative path. A `from m
    import *` is there as `*m`, with the member `*`."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in statements:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None or "." not in alias.name:
                    out[alias.asname or alias.name] = (alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                folder = posixpath.dirname(relpath)
                for _ in range(node.level - 1):
                    folder = posixpath.dirname(folder)
                module = posixpath.join(folder, module.replace(".", "/")).strip("/")
            for alias in node.names:
                # `from conf import *` binds what conf binds: kept as `*conf`
                local = f"*{module}" if alias.name == "*" else alias.asname or alias.name
                out[local] = (module, alias.name)
    return out
