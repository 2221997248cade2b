"""A name no supported pyspark has, called on a DataFrame: the call raises, so the query built
from its result can never start (`df.orderby("w")` for `df.orderBy("w")`).

PySpark's `DataFrame.__getattr__` makes `df.name` a column when the DataFrame has one of that
name and raises AttributeError otherwise, and a Column is not callable (TypeError): either way
the call raises whenever it runs (tests/test_pyspark_methods.py, on real pyspark). Which names
exist is data read from real pyspark releases (extract/pyspark_methods.py).

It is certain only where nothing else could add the name or catch the error: the call runs on
every path (no run-time branch, loop or `try` around it, no `with` whose context manager could
swallow it), no module of the job assigns an attribute of that name or calls `setattr`, and the
job imports nothing but the standard library, pyspark and the repository's modules streamlint
read (a package may add methods to DataFrame, as some do). Otherwise the call stays code
streamlint cannot follow (UN01), as before.
"""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.pyspark_methods import RELEASES
from streamlint.extract.spark_values import Col, Plan
from streamlint.model import Failure
from streamlint.model.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# Names a platform adds to pyspark's classes: Databricks notebooks give every DataFrame a
# `display()` method (https://docs.databricks.com/en/notebooks/visualizations/index.html).
PLATFORM = {"DataFrame": frozenset({"display"})}
KNOWN = {role: frozenset().union(*(names[role] for names in RELEASES.values()),
                                 PLATFORM.get(role, frozenset()))
         for role in RELEASES[max(RELEASES)]}
_OURS = frozenset({"pyspark", "__future__"})


def no_method(role: str, name: str) -> bool:
    """Whether no supported pyspark (nor a platform) has `name` on its class `role`."""
    return not name.startswith("_") and name not in KNOWN[role]


def note_missing(interp: Interpreter, plan: Plan, name: str, node: cst.CSTNode) -> None:
    """`df.name` for a name DataFrame has in no release: remembered, in case it is called."""
    if no_method("DataFrame", name):
        interp.effects.missing[id(node)] = (plan, name)


@registry.method(Col, "__call__")
def missing_method_called(interp: Interpreter, target: Col, name: str, args: list[Any],
                          kwargs: dict[str, Any], node: cst.Call) -> Any:
    seen = interp.effects.missing.get(id(node.func))
    if seen is None or not _certain(interp, seen[1]):
        return registry.NEXT
    plan, method = seen
    failure = Failure("DataFrame", method, "AttributeError")
    return replace(plan, columns=None,
                   unresolved=(*plan.unresolved, (failure, interp.loc(node))))


def _certain(interp: Interpreter, name: str) -> bool:
    effects = interp.effects
    if effects.uncertain or effects.shielded or interp.files:
        return False
    loader = interp.loader
    contexts = dict(loader.contexts) if loader is not None else {}
    if any(context is None for context in contexts.values()):
        return False  # a module of the repository not read could add the name
    modules = [interp.main.module, *(context.module for context in contexts.values())]
    return all(_closed(module.code, name, contexts) for module in modules)


def _closed(code: str, name: str, ours: dict[str, Any]) -> bool:
    """Whether one module neither imports a package that could add `name` nor adds it."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level and not ours:
                return False  # a module of the package, not read
            tops = [node.module or ""] if not node.level else []
        elif isinstance(node, ast.Attribute):
            tops = []
            if node.attr == name and isinstance(node.ctx, ast.Store | ast.Del):
                return False
        elif isinstance(node, ast.Call):
            tops = []
            if isinstance(node.func, ast.Name) and node.func.id == "setattr":
                return False
        else:
            continue
        for full in tops:
            top = full.split(".")[0]
            if not (top in sys.stdlib_module_names or top in _OURS or full in ours
                    or top in ours):
                return False
    return True
