"""What can reach streaming code the run did not: the part of a module it depends on.

A `.readStream` the interpreter never reached (in a method a framework calls, a function
nothing calls with known values) is reported as code streamlint did not read (UN03). Whether
an edit may have changed it does not depend on the whole file: only on the top-level statement
that holds it (its function or class), the module-level statements that define the names it
uses (constants, helpers, imports), what those use in turn, and the repository modules they
import. Their code, without comments, docstrings or formatting, is the unread code's
fingerprint: an edit anywhere else in the file (a log line, another query, a docstring)
cannot reach it and leaves it as it was.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable
from typing import Any, NamedTuple

import libcst as cst

from streamlint.extract.positions import ModuleIndex
from streamlint.extract.symbolic import code_text, digest

# Reads a module of the repository by its import (dotted name, relative level); None when it
# is not one of the repository's.
ModuleText = Callable[[str, int], "str | None"]


def _bound(tree: ast.AST) -> set[str]:
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


def _facts(statement: cst.CSTNode) -> tuple[str, set[str], set[str], list[tuple[str, int]]]:
    """(code, names bound, names used, imports as (dotted, level)) of one statement."""
    code = code_text(statement)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return code, set(), set(), []
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    imports: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.extend((a.name, 0) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            imports.append((base, node.level))
            imports.extend((f"{base}.{a.name}".lstrip("."), node.level) for a in node.names)
    return code, _bound(tree), used, imports


class Reach(NamedTuple):
    """What can reach a piece of code: its own code, the module-level statements it depends
    on (in the module's order) and the repository modules those import, with their text
    ("" when not the repository's)."""

    code: str | None  # code inside a statement the walk started from; None: a statement
    statements: tuple[cst.BaseStatement, ...]
    modules: tuple[tuple[str, int, str], ...]

    def fingerprint(self) -> str:
        codes = [code_text(s) for s in self.statements]
        return digest((tuple(codes if self.code is None else [self.code, *codes]),
                       self.modules))


def reach_of(index: ModuleIndex, start: cst.CSTNode, module_text: ModuleText) -> Reach:
    """What can reach `start`: a top-level statement of the module, or code inside one (a
    nested function), whose own names start the walk."""
    facts = [_facts(statement) for statement in index.body]
    code, _, used, imports = _facts(start)
    taken = {i for i, statement in enumerate(index.body) if statement is start}
    todo = list(taken)
    pending = [] if taken else [used]
    while pending or todo:
        names = pending.pop() if pending else facts[todo.pop()][2]
        for i, (_, bound, _, _) in enumerate(facts):
            if i not in taken and bound & names:
                taken.add(i)
                todo.append(i)
    found = {(dotted, level) for i in taken for dotted, level in facts[i][3]} | set(imports)
    modules = sorted((dotted, level, module_text(dotted, level) or "")
                     for dotted, level in found)
    return Reach(None if taken else code, tuple(index.body[i] for i in sorted(taken)),
                 tuple(modules))


def reach_fingerprint(index: ModuleIndex, node: cst.CSTNode, module_text: ModuleText) -> str:
    """The fingerprint of what can reach `node`; "" (never equal) when it cannot be told."""
    top = index.tops.get(id(node))
    if top is None or not any(statement is top for statement in index.body):
        return ""
    return reach_of(index, top, module_text).fingerprint()


def enclosing_top(index: ModuleIndex, node: cst.CSTNode) -> cst.BaseStatement | None:
    """The module-level statement of `index` that holds `node` (or is it); None if none."""
    for statement in index.body:
        if statement is node:
            return statement
    for statement in index.body:
        stack: list[cst.CSTNode] = [statement]
        while stack:
            current = stack.pop()
            if current is node:
                return statement
            stack.extend(current.children)
    return None


def repository_module_text(find: Callable[[str, str | None], tuple[str, str] | None],
                           read: Callable[[str], str | None], job: str) -> ModuleText:
    """A `ModuleText` over a repository: absolute imports from its source roots, relative
    ones from the job's folder."""

    def text(dotted: str, level: int) -> str | None:
        if not dotted:
            return None
        folder = None
        if level:
            folder = posixpath.dirname(job)
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
        found = find(dotted, folder)
        return read(found[0]) if found else None

    return text


def loader_module_text(loader: Any, relpath: str | None = None) -> ModuleText:
    """A `ModuleText` over the interpreter's module loader (None: no repository), relative
    imports taken from `relpath` (a helper module's) or else the job's folder."""
    if loader is None:
        return lambda dotted, level: None
    return repository_module_text(loader.find, loader.read, relpath or loader.project.job)
