"""What a statement of a job reads and binds, as at_change.py follows names: the names an
expression uses (`self.topic` as one, a notebook widget read as `widget:NAME`), what an
assignment, a `for` or a widget declaration binds, what a function reads of its module,
what a compound statement's header reads."""

from __future__ import annotations

import ast
from collections import deque

from streamlint.extract.widgets import WIDGET_DECLARATIONS, WIDGET_READS


def heads(statement: ast.stmt) -> list[ast.expr]:
    """What a compound statement's header reads (not its body's statements)."""
    if isinstance(statement, ast.If | ast.While):
        return [statement.test]
    if isinstance(statement, ast.For | ast.AsyncFor):
        return [statement.iter]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, ast.Match):
        return [statement.subject]
    return []


def first_line(statement: ast.stmt) -> int:
    """A statement's first line: a decorated def's or class's first decorator."""
    decorators = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno, *(d.lineno for d in decorators)])


def names_used(node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
    """The names a node uses, `self.topic` among them as one name, and its `name.attribute`
    pairs."""
    attributes = {(n.value.id, n.attr) for n in ast.walk(node)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    # `dbutils.widgets.get("chk")` reads what `dbutils.widgets.text("chk", "/mnt/chk")` binds
    names |= {f"widget:{key}" for n in ast.walk(node)
              for key in [widget(n, WIDGET_READS)] if key}
    return names | {f"{base}.{attr}" for base, attr in attributes}, attributes


def reads(function: ast.FunctionDef | ast.AsyncFunctionDef
           ) -> tuple[set[str], set[tuple[str, str]]]:
    """What a function reads of its module, as `names_used` gives it: the names its body uses that
    it does not bind itself (its parameters, what it assigns, defines or imports)."""
    arguments = function.args
    local = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                             arguments.vararg, arguments.kwarg) if a is not None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            local.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            local.add(node.name)
        elif isinstance(node, ast.alias):
            local.add((node.asname or node.name).split(".")[0])
    names, attributes = set(), set()
    for statement in function.body:
        used, pairs = names_used(statement)
        names |= {n for n in used if n.split(".")[0] not in local}
        attributes |= {(base, attr) for base, attr in pairs if base not in local}
    return names, attributes


def widget(node: ast.AST, methods: tuple[str, ...]) -> str:
    """The name of the notebook widget a `dbutils.widgets.<method>("name", ...)` call is about
    (`methods`: declarations or reads), else ""."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "widgets" and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return ""
    return node.args[0].value


def binds(statement: ast.stmt) -> set[str]:
    """The names an assignment binds: `self.topic = ...` binds `self.topic` (not `self`),
    `conf["topic"] = ...` changes `conf`, `for key, value in ...:` binds key and value;
    `dbutils.widgets.text("chk", "/mnt/chk")` binds the widget `chk`'s default."""
    if isinstance(statement, ast.Expr):
        return {f"widget:{widget(statement.value, WIDGET_DECLARATIONS)}"}
    targets = (list(statement.targets) if isinstance(statement, ast.Assign)
               else [statement.target])  # type: ignore[attr-defined]
    out: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            out.add(target.id)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            out.add(f"{target.value.id}.{target.attr}")
        elif isinstance(target, ast.Tuple | ast.List):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred | ast.Subscript | ast.Attribute):
            targets.append(target.value)
    return out


# What can hold a statement: a statement, an `except` clause, a `case` of a `match`.
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.Module) -> list[ast.stmt]:
    """The statements of `tree` in `ast.walk`'s order (breadth first), without walking into
    expressions, which hold none: a file's expressions are most of its nodes."""
    found: list[ast.stmt] = []
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(child for child in ast.iter_child_nodes(node)
                    if isinstance(child, _HOLDERS))
        if isinstance(node, ast.stmt):
            found.append(node)
    return found
