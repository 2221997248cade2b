"""What can reach code in a method: the methods of its class that can, not the whole class.

A framework's class holds many methods; an edit of one that neither sets an attribute the
method reads nor is called by it (through `self`, transitively) cannot change what the method
does. Those methods and the class's own statements (attributes, decorators, bases) are what
can reach it; stores in `__init__` that nothing reads are left out (`dead_stores`).
"""

from __future__ import annotations

import ast

import libcst as cst

from streamlint.extract.code_facts import Imported, _essential, _imports, _unparsed
from streamlint.extract.code_text import code_text
from streamlint.extract.dead_stores import without_dead_stores
from streamlint.extract.scopes import module_names


def _self_uses(code: str) -> tuple[set[str], set[str], set[str]]:
    """(attributes read, attributes written, methods called) through `self` in a method."""
    read: set[str] = set()
    written: set[str] = set()
    called: set[str] = set()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return read, written, called
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("self", "cls"):
            (written if isinstance(node.ctx, ast.Store) else read).add(node.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls"):
            called.add(node.func.attr)
    return read, written, called


def _method_trees(cls: cst.ClassDef, method: cst.FunctionDef
                  ) -> tuple[list[ast.Module], list[cst.FunctionDef]] | None:
    """The syntax trees of the class's own statements (attributes, decorators, bases) and of
    the methods of `cls` that can reach `method`'s behaviour (those it calls through self,
    those that set an attribute it reads, transitively), `method` first and named `_`: a
    framework's hook renamed (kedro's `_load` -> `load`) is the same code reading the same
    stream. None when one cannot be parsed."""
    methods = {m.name.value: m for m in cls.body.body if isinstance(m, cst.FunctionDef)}
    uses = {name: _self_uses(code_text(m)) for name, m in methods.items()}
    taken = {method.name.value}
    todo = [method.name.value]
    while todo:
        read, _, called = uses[todo.pop()]
        for name, (_, written, _) in uses.items():
            if name not in taken and (name in called or written & read):
                taken.add(name)
                todo.append(name)
    others = [s for s in cls.body.body if not isinstance(s, cst.FunctionDef)]
    header = cls.with_changes(body=cst.IndentedBlock(body=[*others, cst.SimpleStatementLine(
        [cst.Pass()])]))
    order = [method.name.value, *sorted(taken - {method.name.value})]
    trees: list[ast.Module] = []
    for code in [code_text(header), *(code_text(methods[n]) for n in order)]:
        try:
            trees.append(ast.parse(code))
        except (SyntaxError, ValueError, RecursionError):
            return None
    if trees[1].body and isinstance(trees[1].body[0], ast.FunctionDef):
        trees[1].body[0].name = "_"
    header_class = trees[0].body[0] if trees[0].body else None
    for tree, name in zip(trees[1:], order, strict=True):
        if name == "__init__" and isinstance(header_class, ast.ClassDef) and tree.body \
                and isinstance(tree.body[0], ast.FunctionDef):
            without_dead_stores(header_class.body, tree.body[0])
    return trees, [methods[n] for n in order]


def _method_reach(cls: cst.ClassDef, method: cst.FunctionDef
                  ) -> tuple[list[str], set[str], list[cst.FunctionDef], list[Imported]]:
    """The code of the methods of `cls` that can reach `method` and of the class's own
    statements (`_method_trees`), with the names they use, and those methods."""
    found = _method_trees(cls, method)
    if found is None:
        return [], set(), [], []
    trees, methods = found
    codes: list[str] = []
    used: set[str] = set()
    imports: list[Imported] = []
    for tree in trees:
        imports += _imports(tree)
        essential = _essential(tree)
        used |= {n.id for n in module_names(essential)}
        codes.append(_unparsed(essential, ""))
    return codes, used, methods, imports
