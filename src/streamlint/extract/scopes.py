"""Which names in a piece of code are the module's: Python's scoping rules over a syntax tree.

A name bound anywhere in a function (an assignment, a parameter, an import, a `for` target,
a nested def) is that function's own throughout it, unless declared `global`; a class body's
names are its own for the class body only, not for its methods. Every other name read is
looked up in the module (or among the builtins). What can reach unread code follows only
those: a function's `from databricks.connect import DatabricksSession` is its own name, not
the module's `DatabricksSession = None`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (*_FUNCTIONS, ast.ClassDef, *_COMPREHENSIONS)
_NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs,
          ast.MatchStar)


def module_names(tree: ast.AST) -> list[ast.Name]:
    """The names read in `tree` (a module's top-level statement, or a method as one) that are
    looked up in the module: outside every function, or in a function that does not bind
    them itself (nor does a function around it)."""
    found: list[ast.Name] = []
    _visit(tree if isinstance(tree, ast.Module) else ast.Module([tree], []), (), found)
    return found


# The names each scope around a node binds, and whether it is a class body (whose names the
# functions and comprehensions nested in it do not see).
Enclosing = tuple[tuple[frozenset[str], bool], ...]


def _visit(node: ast.AST, enclosing: Enclosing, found: list[ast.Name]) -> None:
    for child in _own_nodes(node):
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Store | ast.Del):
            if not any(child.id in names for names, _ in enclosing):
                found.append(child)
        elif isinstance(child, _SCOPES):
            for outer in _outside(child):
                _visit(ast.Expr(outer), enclosing, found)
            inner = tuple(e for e in enclosing if not e[1])
            _visit(child, (*inner, (frozenset(bound_in(child)),
                                    isinstance(child, ast.ClassDef))), found)


def _outside(scope: ast.AST) -> list[ast.AST]:
    """What a scope's definition evaluates in the scope around it: decorators and defaults
    (annotations are left out of what can reach a query), a class's bases and keywords, a
    comprehension's first iterable."""
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return [*scope.decorator_list, *scope.args.defaults,
                *(d for d in scope.args.kw_defaults if d is not None)]
    if isinstance(scope, ast.Lambda):
        return [*scope.args.defaults, *(d for d in scope.args.kw_defaults if d is not None)]
    if isinstance(scope, ast.ClassDef):
        return [*scope.decorator_list, *scope.bases, *(k.value for k in scope.keywords)]
    if isinstance(scope, _COMPREHENSIONS):
        return [scope.generators[0].iter]
    return []


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `node`'s own scope: nested scopes are yielded but not entered."""
    stack = list(_inner(node))
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(current, _SCOPES):
            stack.extend(ast.iter_child_nodes(current))


def _inner(scope: ast.AST) -> list[ast.AST]:
    """The code that runs inside a scope (not what `_outside` names)."""
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return list(scope.body)
    if isinstance(scope, ast.Lambda):
        return [scope.body]
    if isinstance(scope, _COMPREHENSIONS):
        parts: list[ast.AST] = [scope.key, scope.value] if isinstance(scope, ast.DictComp) \
            else [scope.elt]
        for i, generator in enumerate(scope.generators):
            parts += [generator.target, *([generator.iter] if i else []), *generator.ifs]
        return parts
    return list(ast.iter_child_nodes(scope))


def bound_in(scope: ast.AST) -> set[str]:
    """The names a function, class or comprehension binds itself (its parameters too),
    less those it declares `global` or `nonlocal`."""
    names: set[str] = set()
    declared: set[str] = set()
    if isinstance(scope, _FUNCTIONS):
        arguments = scope.args
        names |= {a.arg for a in (*arguments.posonlyargs, *arguments.args,
                                  *arguments.kwonlyargs)}
        names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, _NAMED) and node.name:
            names.add(node.name)  # a def, a class, `except E as e`, `case x`
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names - declared


def binds(tree: ast.AST) -> set[str]:
    """Names a top-level statement binds (not descending into function or class bodies)."""
    names: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return names
