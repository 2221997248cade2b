"""What a statement is made of, for what can reach a query: its essential code, the names it
binds and reads, and what it imports.

The essential code is the statement's code without comments, docstrings, type annotations,
statements that only print or log, or formatting (`_essential`): an edit of those cannot
reach what a query reads, keeps or writes. Each module-level statement's facts are read once
a run (`_facts`, `_Facts`), however many unread streams and batch functions ask; the names
a top-level statement binds come from its syntax tree without reading the rest.
"""

from __future__ import annotations

import ast

import libcst as cst

from streamlint.extract.code_text import code_text
from streamlint.extract.scopes import binds, module_names

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


def _single(tree: ast.AST) -> ast.stmt:
    body = tree.body if isinstance(tree, ast.Module) else []
    return body[0] if len(body) == 1 else ast.Module(body, [])  # type: ignore[return-value]
