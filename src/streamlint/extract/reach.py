"""What can reach streaming code the run did not: the part of a module it depends on.

A `.readStream` the interpreter never reached (in a method a framework calls, a function
nothing calls with known values) is reported as code streamlint did not read (UN03). Whether
an edit may have changed it does not depend on the whole file: only on the top-level statement
that holds it (its function or class), the module-level statements that define the names it
uses (constants, helpers, imports), what those use in turn, and the repository modules they
import. Their code, without comments, docstrings or formatting, is the unread code's
fingerprint: an edit anywhere else in the file (a log line, another query, a docstring)
cannot reach it and leaves it as it was.

The facts of each statement (its essential code, the names it binds and reads, its imports)
are `extract/code_facts.py`; the statement holding a node, `extract/top_level.py`; the
methods of a class that can reach one of them, `extract/method_reach.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, NamedTuple

import libcst as cst

from streamlint.extract.code_facts import (
    Imported,
    _Facts,
    _facts,
    _keeping_imports,
    _parsed,
    _part,
    _single,
)
from streamlint.extract.code_text import code_text
from streamlint.extract.identity import Finder, Identity, Module, no_repository
from streamlint.extract.imports import is_outside, package_folder
from streamlint.extract.method_reach import _method_reach, _method_trees
from streamlint.extract.positions import ModuleIndex
from streamlint.extract.scopes import binds
from streamlint.extract.symbolic import digest
from streamlint.extract.top_level import _defined_beside, _start


class Reach(NamedTuple):
    """What can reach a piece of code: the code it starts from (`nodes`: its top-level
    statement, the methods of its class that can reach it, or itself), the module-level
    statements defining the names used, transitively, the repository modules those import
    with their code ("" when not the repository's), and its fingerprint (`identity_of`)."""

    codes: tuple[str, ...]
    nodes: tuple[cst.CSTNode, ...]
    statements: tuple[cst.BaseStatement, ...]
    modules: tuple[tuple[str, int, str], ...]
    identity: str

    def fingerprint(self) -> str:
        return self.identity


def identity_of(index: ModuleIndex, node: cst.CSTNode, find: Finder, path: str,
                alone: bool = False) -> str:
    """The fingerprint of what can reach `node`; "" (never equal) when it cannot be told.

    In a method, that is the methods of its class that can reach it (not the whole class:
    a framework's class holds many methods, and an edit of one that neither sets what the
    method reads nor is called by it cannot change it); with `alone`, a function nested in
    another by its own code; elsewhere, its top-level statement. Each module-level name that
    code reads counts by what it stands for (extract/identity.py), wherever that is defined:
    a helper moved to another module, or renamed, with the same code, is the same helper."""
    found = _start(index, node)
    if found is None:
        return ""
    start, top, method = found
    module = _job_module(index, path)
    trees: list[ast.AST]
    if method is not None and isinstance(top, cst.ClassDef):
        read = _method_trees(top, method)
        if read is None:
            return ""
        trees = list(read[0])
    elif alone and top is not node:
        tree = _parsed(code_text(node))
        if tree is None:
            return ""
        trees = [tree]
    else:
        statement = module.statement(start)
        if statement is None:
            return ""
        # Its own name kept: a pipeline's flow or table is named by its function.
        trees = [statement]
    identity = _identity(find)
    return digest(tuple(identity.code(_keeping_imports(tree), module)
                        for tree in trees))


# One resolver per repository a run reads (kept, so an id is never reused): what a name of
# a module stands for is resolved once, however many unread streams use it.
_IDENTITIES: dict[int, tuple[Finder, Identity]] = {}


def _identity(find: Finder) -> Identity:
    cached = _IDENTITIES.get(id(find))
    if cached is not None and cached[0] is find:
        return cached[1]
    if len(_IDENTITIES) > 50:
        _IDENTITIES.clear()
    identity = Identity(find, _keeping_imports, _repository_module)
    _IDENTITIES[id(find)] = (find, identity)
    return identity


# Per module index (kept, so an id is never reused): its statements as `identity.Module`.
_MODULES: dict[int, tuple[ModuleIndex, str, Module]] = {}


def _job_module(index: ModuleIndex, path: str) -> Module:
    """The module holding the unread code, its statements parsed as they are asked for."""
    cached = _MODULES.get(id(index))
    if cached is not None and cached[0] is index and cached[1] == path:
        return cached[2]
    if len(_MODULES) > 200:
        _MODULES.clear()
    trees: dict[int, ast.stmt | None] = {}

    def statement(i: int) -> ast.stmt | None:
        if i not in trees:
            tree = _parsed(code_text(index.body[i]))
            trees[i] = None if tree is None else _single(_keeping_imports(tree))
        return trees[i]

    bound = _Facts(index.body).bound
    module = Module(path, bound, statement, [i for i, b in enumerate(bound) if "*" in b])
    _MODULES[id(index)] = (index, path, module)
    return module


def _repository_module(path: str, text: str) -> Module:
    """A module of the repository a name was imported from, its statements made essential
    as they are asked for."""
    tree = _parsed(text)
    body = tree.body if tree is not None else []
    star = [i for i, s in enumerate(body) if isinstance(s, ast.ImportFrom)
            and any(a.name == "*" for a in s.names)]
    done: set[int] = set()

    def statement(i: int) -> ast.stmt:
        if i not in done:
            done.add(i)
            body[i] = _single(_keeping_imports(ast.Module([body[i]], [])))
        return body[i]

    return Module(path, [binds(s) for s in body], statement, star)


def reach_of(index: ModuleIndex, node: cst.CSTNode, find: Finder, path: str,
             alone: bool = False) -> Reach | None:
    """What can reach `node` (see `identity_of`): the code it starts from, the module-level
    statements defining the names it uses, transitively, and the repository modules they
    import; with `alone`, code nested in a top-level function (a function defined in one)
    starts from its own code rather than the whole enclosing function. None when `node` is
    in no statement of the module."""
    found = _start(index, node)
    if found is None:
        return None
    start, top, method = found
    facts = _Facts(index.body)
    codes: list[str] = []
    used: set[str] = set()
    nodes: list[cst.CSTNode] = [top]
    taken: set[int] = set()
    own_imports: list[Imported] = []
    if method is not None and isinstance(top, cst.ClassDef):
        codes, used, methods, own_imports = _method_reach(top, method)
        if not codes:
            return None
        used.discard(top.name.value)
        nodes = list(methods)
    elif alone and top is not node:
        code, _, used, own_imports = _facts(node)
        codes, nodes = [code], [node, *_defined_beside(top, node, used)]
        codes += [_facts(helper)[0] for helper in nodes[1:]]
        used = used.union(*(_facts(helper)[2] for helper in nodes[1:]))
    else:
        taken = {start}
        used = set(facts[start][2])
    taken |= _closure(facts, used, taken, start)
    imports = [imported for i in taken for imported in facts[i][3]] + own_imports
    codes += [facts[i][0] for i in sorted(taken) if facts[i][0]]

    def module_text(dotted: str, level: int) -> str | None:
        found = find(dotted, level, path)
        return found[1] if found is not None else None

    modules = sorted({(dotted, level, _part(text, names) if text else "")
                      for dotted, level, names in imports
                      for text in [module_text(dotted, level)]})
    return Reach(tuple(codes), tuple(nodes),
                 tuple(index.body[i] for i in sorted(taken) if i != start), tuple(modules),
                 identity_of(index, node, find, path, alone))


def _closure(facts: _Facts, used: set[str], taken: set[int], start: int) -> set[int]:
    """The module-level statements defining `used`, and what those use, transitively."""
    taken = set(taken)
    todo = list(taken)
    pending = set(used)
    while True:
        for i, bound in enumerate(facts.bound):
            if i not in taken and i != start and bound & pending:
                taken.add(i)
                todo.append(i)
        if not todo:
            return taken
        pending = set()
        while todo:
            pending |= facts[todo.pop()][2]


def repository_finder(find: Callable[[str, str | None], tuple[str, str] | None],
                      read: Callable[[str], str | None]) -> Finder:
    """A `Finder` over a repository: absolute imports from its source roots, relative ones
    from the importing module's folder."""

    def finder(dotted: str, level: int, importer: str) -> tuple[str, str] | None:
        if not dotted or (not level and is_outside(dotted)):
            return None  # the standard library and pyspark, as the interpreter's imports
        folder = None
        if level:
            folder = package_folder(importer, level)
            if folder is None:
                return None
        found = find(dotted, folder)
        text = read(found[0]) if found else None
        return (found[0], text) if found and text is not None else None

    return finder


_FINDERS: dict[int, tuple[Any, Finder]] = {}


def loader_finder(loader: Any) -> Finder:
    """A `Finder` over the interpreter's module loader (None: no repository), one per
    loader (`_identity` resolves names once per finder)."""
    if loader is None:
        return no_repository
    cached = _FINDERS.get(id(loader))
    if cached is None or cached[0] is not loader:
        if len(_FINDERS) > 50:
            _FINDERS.clear()
        cached = _FINDERS[id(loader)] = (loader, repository_finder(loader.find, loader.read))
    return cached[1]
