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
from collections.abc import Callable
from typing import Any, NamedTuple

import libcst as cst

from streamlint.extract.code_text import code_text
from streamlint.extract.dead_stores import without_dead_stores
from streamlint.extract.identity import Finder, Identity, Module, no_repository
from streamlint.extract.imports import is_outside, package_folder
from streamlint.extract.positions import ModuleIndex, children_of, first_name
from streamlint.extract.scopes import binds, module_names
from streamlint.extract.symbolic import digest

Facts = tuple[str, set[str], set[str], "list[Imported]"]
# Per statement node (kept, so an id is never reused for another node): its facts. A module's
# statements are read once a run however many unread streams and batch functions ask.
_FACTS: dict[int, tuple[cst.CSTNode, Facts]] = {}


def _facts(statement: cst.CSTNode) -> Facts:
    """(code, names bound, names used, imports as (dotted, level, names)) of one statement."""
    cached = _FACTS.get(id(statement))
    if cached is not None and cached[0] is statement:
        return cached[1]
    if len(_FACTS) > 20_000:
        _FACTS.clear()
    found = _read_facts(statement)
    _FACTS[id(statement)] = (statement, found)
    return found


def _read_facts(statement: cst.CSTNode) -> Facts:
    code = code_text(statement)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return code, set(), set(), []
    imports = _imports(tree)
    bound = binds(tree)
    if all(isinstance(s, ast.Import | ast.ImportFrom) for s in tree.body):
        return "", bound, set(), imports  # counted as the modules it takes (`Reach.modules`)
    essential = _essential(tree)
    used = {n.id for n in module_names(essential)}
    return _unparsed(essential, code), bound, used, imports


# Calls made for their output only: a log line, a print, a DataFrame shown. An edit of them
# cannot reach what a query reads, keeps or writes.
_OUTPUT_ONLY = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                          "log", "show", "printSchema", "explain"})


def _essential(tree: ast.AST, imports: bool = False) -> ast.AST:
    """The code that can reach a query: without type annotations (they run nothing a query
    depends on), docstrings, statements that only print or log, and (unless `imports`)
    imports inside functions (what they import counts as a module, wherever it is)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        body = getattr(node, "body", None)
        if isinstance(body, list) and not isinstance(node, ast.Module):
            kept = [s for s in body if not _output_only(s)
                    and (imports or not isinstance(s, ast.Import | ast.ImportFrom))]
            node.body = kept or [ast.Pass()]
        for field in ("orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block:
                kept = [s for s in block if not _output_only(s)]
                setattr(node, field, kept or ([ast.Pass()] if field == "orelse"
                                              and isinstance(node, ast.If) else kept))
    return tree


def _output_only(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return isinstance(statement.value.value, str)  # a docstring, a bare string
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    if isinstance(func, ast.Name):  # a bare name: the job's own `log(df)` may do anything
        return func.id == "print"
    return isinstance(func, ast.Attribute) and func.attr in _OUTPUT_ONLY


def _unparsed(tree: ast.AST, fallback: str) -> str:
    try:
        return ast.unparse(tree)
    except (ValueError, RecursionError):
        return fallback


Imported = tuple[str, int, "tuple[str, ...] | None"]


def _imports(tree: ast.AST) -> list[Imported]:
    """Every import in the code, as (dotted, relative level, the names taken from it, or
    None for the whole module); `from a import b` also as the module `a.b`, which `b` may be."""
    imports: list[Imported] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.extend((a.name, 0, None) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names = tuple(a.name for a in node.names)
            imports.append((base, node.level, None if "*" in names else names))
            imports.extend((f"{base}.{a.name}".lstrip("."), node.level, None)
                           for a in node.names)
    return imports


def _part(text: str, names: tuple[str, ...] | None) -> str:
    """What an import takes from a module's code: the statements defining `names` and,
    transitively, what they use there (an edit of another function of that module cannot
    change them); the whole module, without docstrings, for `import m` or a name it does not
    define itself."""
    if names is None:
        return _code(text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text
    body = _essential(tree).body  # an annotation's or a log line's names take nothing
    bound = [binds(statement) for statement in body]
    if any(not any(name in b for b in bound) for name in names):
        return _code(text)
    taken: set[int] = set()
    pending = set(names)
    while pending:
        new = {i for i, b in enumerate(bound) if i not in taken and b & pending}
        taken |= new
        pending = {n.id for i in new for n in ast.walk(body[i]) if isinstance(n, ast.Name)}
    return _code(ast.unparse(ast.Module([body[i] for i in sorted(taken)], [])))


def _code(text: str) -> str:
    """A module's code without comments, docstrings, annotations, log lines or formatting
    (`_essential`: its docs links, say, are no edit of what it defines)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text
    return _unparsed(_essential(tree), text)


class _Facts:
    """The facts of a module's statements, read as they are asked for: the names each binds
    for all of them (cheap, from the syntax tree), the rest only for those taken."""

    def __init__(self, body: tuple[cst.BaseStatement, ...]) -> None:
        self.body = body
        self.bound = [_bound_cst(statement) for statement in body]

    def __getitem__(self, i: int) -> Facts:
        return _facts(self.body[i])


def _bound_cst(statement: cst.CSTNode) -> set[str]:
    """The names a top-level statement binds, from its syntax tree; a compound statement
    other than a def or class is read whole (`_facts`)."""
    if isinstance(statement, cst.FunctionDef | cst.ClassDef):
        return {statement.name.value}
    if not isinstance(statement, cst.SimpleStatementLine):
        return _facts(statement)[1]
    names: set[str] = set()
    for small in statement.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                names |= _target_names(target.target)
        elif isinstance(small, cst.AnnAssign | cst.AugAssign):
            names |= _target_names(small.target)
        elif isinstance(small, cst.Import):
            names |= {(cst.Module([]).code_for_node(a.asname.name) if a.asname else
                       cst.Module([]).code_for_node(a.name).split(".")[0]) for a in small.names}
        elif isinstance(small, cst.ImportFrom):
            if isinstance(small.names, cst.ImportStar):
                names.add("*")
            else:
                names |= {cst.Module([]).code_for_node(a.asname.name if a.asname else a.name)
                          for a in small.names}
    return names


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return {n for element in target.elements for n in _target_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()  # `a.b = ...`, `a[k] = ...` bind no name


def _top_of(index: ModuleIndex, node: cst.CSTNode) -> cst.CSTNode | None:
    """The top-level statement holding `node`; None when it is in none. The statement is
    found by lines (the last one starting at or before the node's first name), then checked."""
    if any(statement is node for statement in index.body):
        return node
    name = first_name(node)
    where = index.starts.get(id(name)) if name is not None else None
    if where is None:
        return next((s for s in index.body if _contains(s, node)), None)
    candidate = None
    bounded = False  # a statement after the candidate starts after the node
    for statement in index.body:
        first = _first_of(index, statement)
        start = index.starts.get(id(first)) if first is not None else None
        if start is not None and start <= where:
            candidate = statement
        elif start is not None:
            # (a decorator is written before the first name its statement is found by)
            bounded = not getattr(statement, "decorators", ())
            break
    # The module's own node (its first name has a position in this module) between two
    # statements' starts is in the first: walking a big class to check it is slow.
    if candidate is not None and (bounded and id(name) in index.starts
                                  or _contains(candidate, node)):
        return candidate
    return next((s for s in index.body if _contains(s, node)), None)


def _first_of(index: ModuleIndex, statement: cst.CSTNode) -> cst.Name | None:
    """`first_name` of a top-level statement, found once a module: `_top_of` scans them all
    for every node it places (818 walks on `bench/jobs/sql_*`, 466 of them repeated)."""
    key = id(statement)
    if key not in index.first_names:
        index.first_names[key] = first_name(statement)
    return index.first_names[key]


_BLOCKS = (cst.BaseSuite, cst.If, cst.Else, cst.For, cst.While, cst.With, cst.Try,
           cst.ExceptHandler, cst.Finally)


def _defined_beside(top: cst.CSTNode, node: cst.CSTNode, used: set[str]
                    ) -> list[cst.FunctionDef]:
    """The functions nested code calls that are defined in the same top-level statement (a
    `write_to_cassandra` beside the `foreachBatch(lambda ...)` in `if __name__ ==
    "__main__":`, or in the enclosing function): part of that code, as a module-level
    helper is."""
    found: list[cst.FunctionDef] = []
    stack = [top]
    while stack:
        for child in children_of(stack.pop()):
            if isinstance(child, cst.FunctionDef) and child is not top and (
                    child.name.value in used and not _contains(child, node)):
                found.append(child)
            elif isinstance(child, _BLOCKS):
                stack.append(child)
    return found


def _contains(root: cst.CSTNode, target: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        current = stack.pop()
        if current is target:
            return True
        stack.extend(children_of(current))
    return False


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


def _start(index: ModuleIndex, node: cst.CSTNode
           ) -> tuple[int, cst.CSTNode, cst.FunctionDef | None] | None:
    """(index, statement) of the top-level statement holding `node`, and the method of its
    class holding it; None when `node` is in no statement of the module."""
    top = index.tops.get(id(node)) or _top_of(index, node)
    start = next((i for i, statement in enumerate(index.body) if statement is top), None)
    if start is None or top is None:
        return None
    method = None
    if isinstance(top, cst.ClassDef):
        methods = [m for m in top.body.body if isinstance(m, cst.FunctionDef)]
        method = _by_position(index, methods, node)
        if method is None or not _contains(method, node):
            method = next((m for m in methods if _contains(m, node)), None)
    return start, top, method


def _by_position(index: ModuleIndex, methods: list[cst.FunctionDef], node: cst.CSTNode
                 ) -> cst.FunctionDef | None:
    """The last method starting at or before `node` (by the lines of their first names):
    walking a big class's every method to find the one holding `node` is slow."""
    name = first_name(node)
    where = index.starts.get(id(name)) if name is not None else None
    found = None
    for method in methods if where is not None else []:
        start = index.starts.get(id(method.name))
        if start is not None and start <= where:
            found = method
    return found


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


def _keeping_imports(tree: ast.AST) -> ast.AST:
    """`_essential`, with the imports inside functions and blocks that bind a name the code
    reads (`import logging` for a log line left out is no part of what can reach a query)."""
    tree = _essential(tree, imports=True)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and not isinstance(n.ctx, ast.Store)}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(node, ast.Module) or not isinstance(block, list):
                continue
            for statement in block:
                if isinstance(statement, ast.Import | ast.ImportFrom):
                    statement.names = [a for a in statement.names if a.name == "*" or (
                        a.asname or a.name.split(".")[0]) in read] or statement.names
            kept = [s for s in block if not isinstance(s, ast.Import | ast.ImportFrom)
                    or any((a.asname or a.name.split(".")[0]) in read for a in s.names)]
            setattr(node, field, kept or ([ast.Pass()] if field == "body" else kept))
    return tree


def _parsed(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return None


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


def _single(tree: ast.AST) -> ast.stmt:
    body = tree.body if isinstance(tree, ast.Module) else []
    return body[0] if len(body) == 1 else ast.Module(body, [])  # type: ignore[return-value]


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
