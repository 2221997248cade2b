"""Stores in a constructor that nothing can read: `self._args = args` written again a few
lines later (`self._args = {**DEFAULTS, **args}`) before any code could see the first value.

Removing such a store is a refactor with the same behaviour (the object built is the same),
so it is no part of what can reach a query (extract/reach.py). Only what is certain counts:
both stores are unconditional statements of `__init__`'s own body, and between them (and in
the value written second) nothing reads the attribute, nothing is handed `self` (a call, a
`super()`, a method of the class, a `getattr`), and `self` was handed to nothing before. An
attribute read in between must be plain: a class-level constant written as a literal, or an
attribute the constructor wrote itself (attributes are taken to be plain fields, not
properties of a base class outside the file). If the constructor raises between the two
stores, the object is never built, so the first value is never seen either.
"""

from __future__ import annotations

import ast

SELF = "self"


def without_dead_stores(cls_body: list[ast.stmt], init: ast.FunctionDef) -> None:
    """Remove, in place, the stores of `init` (a class's `__init__`) that are written again
    before anything can read them; a value with effects of its own is kept as a statement."""
    if init.name != "__init__" or not init.args.args or init.args.args[0].arg != SELF:
        return
    plain = _class_constants(cls_body)
    body = init.body
    kept: list[ast.stmt] = []
    for i, statement in enumerate(body):
        target = _stored(statement)
        if target is not None and _dead(body, i, target, plain):
            value = statement.value  # type: ignore[union-attr]
            if value is not None and not isinstance(value, ast.Name | ast.Constant):
                kept.append(ast.Expr(value))
            continue
        kept.append(statement)
    init.body = kept or [ast.Pass()]


def _class_constants(cls_body: list[ast.stmt]) -> set[str]:
    """Names the class body binds to a value that runs no code (`DEFAULT_ARGS = {}`)."""
    names: set[str] = set()
    for statement in cls_body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        if any(isinstance(n, ast.Call | ast.Lambda | ast.NamedExpr) for n in ast.walk(value)):
            continue
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _stored(statement: ast.stmt) -> str | None:
    """The attribute `statement` writes on self (`self.x = ...`), if that is all it writes."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target = statement.target
    else:
        return None
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
            and target.value.id == SELF:
        return target.attr
    return None


def _dead(body: list[ast.stmt], i: int, attr: str, plain: set[str]) -> bool:
    """Whether the store of `attr` at `body[i]` is written again before anything can read it."""
    written = set(plain)
    for statement in body[:i]:
        if not _blind(statement, None, written):
            return False  # self handed over before: code in between may see the store
        written |= _writes(statement)
    written |= _writes(body[i])
    if not _blind(body[i].value, None, written):  # type: ignore[attr-defined]
        return False
    for statement in body[i + 1:]:
        if _stored(statement) == attr:
            return _blind(statement.value, attr, written)  # type: ignore[attr-defined]
        if not _blind(statement, attr, written):
            return False
        written |= _writes(statement)
    return False


def _writes(statement: ast.stmt) -> set[str]:
    return {n.attr for n in ast.walk(statement) if isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
            and n.value.id == SELF}


def _blind(node: ast.AST, attr: str | None, plain: set[str]) -> bool:
    """Whether `node` can neither read `attr` on self nor hand `self` to any code: `self`
    appears only as `self.<plain attribute>` read or `self.<other>` written."""
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == "super":
            return False
        if not (isinstance(n, ast.Name) and n.id == SELF):
            continue
        parent = parents.get(id(n))
        if not isinstance(parent, ast.Attribute) or parent.attr == attr:
            return False
        if not isinstance(parent.ctx, ast.Store) and parent.attr not in plain:
            return False
    return True
