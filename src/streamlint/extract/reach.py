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


def _facts(statement: cst.BaseStatement) -> tuple[str, set[str], set[str], list[tuple[str, int]]]:
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


def reach_fingerprint(index: ModuleIndex, node: cst.CSTNode, module_text: ModuleText) -> str:
    """The fingerprint of what can reach `node`; "" (never equal) when it cannot be told."""
    top = index.tops.get(id(node))
    if top is None:
        return ""
    facts = [_facts(statement) for statement in index.body]
    start = next((i for i, statement in enumerate(index.body) if statement is top), None)
    if start is None:
        return ""
    taken = {start}
    todo = [start]
    while todo:
        used = facts[todo.pop()][2]
        for i, (_, bound, _, _) in enumerate(facts):
            if i not in taken and bound & used:
                taken.add(i)
                todo.append(i)
    codes = [facts[i][0] for i in sorted(taken)]
    modules = sorted({(dotted, level, module_text(dotted, level) or "")
                      for i in taken for dotted, level in facts[i][3]})
    return digest((tuple(codes), tuple(modules)))


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
