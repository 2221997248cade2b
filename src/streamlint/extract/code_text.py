"""A definition's code as the standard library unparses it (no comments, docstrings or formatting),
with the names it reads: so that only a real edit changes a fingerprint. Cached per node."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from streamlint.extract.positions import code_of

# Per definition node: its code without comments and docstrings, and the names it reads.
# Nodes live as long as their parsed module; the cache is emptied when it grows large.
_CODES: dict[int, tuple[cst.CSTNode, str, tuple[str, ...]]] = {}


def names_of(node: cst.CSTNode) -> tuple[str, ...]:
    code_text(node)
    return _CODES[id(node)][2]


def code_text(node: cst.CSTNode) -> str:
    """A definition's (or a module's, or a lambda's) code without comments, docstrings or
    formatting, in the standard library's unparsed form, so only a real edit changes it."""
    cached = _CODES.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    code = code_of(node)
    names: tuple[str, ...] = ()
    try:
        tree = ast.parse(textwrap.dedent(code).strip())
        read: set[str] = set()
        # One walk: a docstring dropped holds no name, and the walk has already queued it.
        for part in ast.walk(tree):
            if isinstance(part, ast.Name):
                read.add(part.id)
                continue
            body = getattr(part, "body", None)
            if (isinstance(part, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    and body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                part.body = body[1:] or [ast.Pass()]
        names = tuple(sorted(read))
        code = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError):
        pass
    if len(_CODES) > 20_000:
        _CODES.clear()
    _CODES[id(node)] = (node, code, names)
    return code
