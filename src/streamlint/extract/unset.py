"""An attribute read on an object of the job's own class that nothing can have set: Python
raises AttributeError there every time the read runs (`self.schema_path` in `__init__`, where
only `self.config_path` is assigned), so a query started after it never starts.

It is certain only where nothing could set the name or catch the error: the read runs on every
path (no run-time branch, loop, `try` or `with` around it), the class has no base class, no
metaclass and no decorator (any of them could give it the attribute), and no module of the job
binds or names it in any way: no assignment of an attribute or a name of that spelling, no
function, parameter or keyword of it, no string of it (`setattr(self, "x", ...)`,
`self.__dict__["x"]`), and no `setattr`, `__dict__`, `vars`, `__getattr__`,
`__getattribute__` or `__slots__` anywhere. Otherwise the read is a value streamlint cannot
know, as before. Generic Python, so part of the interpreter's machinery, not of PySpark's.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract.values import Instance
from streamlint.model import Failure, Unknown

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# Ways to set or find an attribute that no spelling of its name shows.
_DYNAMIC = frozenset({"setattr", "__dict__", "vars", "__getattr__", "__getattribute__",
                      "__slots__", "__setattr__", "globals", "locals", "exec", "eval"})


def unset_attribute(interp: Interpreter, target: Instance, name: str,
                    node: cst.CSTNode) -> Unknown:
    """`target.name` where neither the object nor its class holds `name`: a value only the
    run knows, and where nothing can have set it, a failure every later query carries."""
    effects = interp.effects
    if effects.failed is None and _certain(interp, target, name):
        cls = target.cls.node.name.value
        said = (f"`{cls}` object has no attribute `{name}`: nothing in the job sets it, so "
                f"reading it raises AttributeError")
        effects.failed = (Failure(cls, name, "AttributeError", said), interp.loc(node))
    return Unknown(interp.code(node))


def _certain(interp: Interpreter, target: Instance, name: str) -> bool:
    effects = interp.effects
    if effects.uncertain or effects.shielded or interp.files or name.startswith("__"):
        return False
    cls = target.cls.node
    if cls.bases or cls.keywords or cls.decorators:
        return False
    loader = interp.loader
    contexts: dict[str, Any] = dict(loader.contexts) if loader is not None else {}
    if any(context is None for context in contexts.values()):
        return False  # a module of the repository not read could set the name
    modules = [interp.main.module, *(context.module for context in contexts.values())]
    return all(_never_set(module.code, name) for module in modules)


def _never_set(code: str, name: str) -> bool:
    """Whether one module has no way to set `name` on an object (see the module's text)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (node.attr in _DYNAMIC or node.attr == name
                                                and not isinstance(node.ctx, ast.Load)):
            return False
        if isinstance(node, ast.Name) and (node.id in _DYNAMIC or node.id == name
                                           and not isinstance(node.ctx, ast.Load)):
            return False
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and (
                node.name == name or node.name in _DYNAMIC):
            return False
        if (isinstance(node, ast.arg) and node.arg == name
                or isinstance(node, ast.keyword) and node.arg == name
                or isinstance(node, ast.Constant) and node.value in (name, *_DYNAMIC)):
            return False
    return True
