"""Whether a name bound to a stream writer that was never started can be started by any code.

A lab's `query = (df.writeStream  # TODO ...)` followed by `print(query.status)`,
`query.awaitTermination()` or `wait_until_ready(query)` (a helper reading
`query.recentProgress`) treats the writer as the query it would start: every such use looks
up a name no DataStreamWriter has, which raises, and none of them starts it. Read from the
code as written (every file the run read, whether or not the run reached that code): the
name bound once, and each use an attribute no DataStreamWriter of any release has, or an
argument of a function of the file that uses its parameter only that way. Anything else (the
name rebound, handed on, configured further, put in a list) may start it: not certain.
"""

from __future__ import annotations

import ast

from streamlint.extract.pyspark_methods import RELEASES


def never_started(name: str, texts: list[str]) -> bool:
    """Whether no code in `texts` (the module and the files it runs) can start the writer
    bound once to `name`."""
    trees: list[ast.Module] = []
    for text in texts:
        try:
            trees.append(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError):
            return False
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for tree in trees:
        for statement in tree.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.setdefault(statement.name, []).append(statement)
    stores = 0
    for tree in trees:
        parents = _parents(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Name) and node.id == name):
                continue
            if isinstance(node.ctx, ast.Store):
                stores += 1
            elif not _harmless(node, parents, functions, trees):
                return False
    return stores == 1


def no_writer_has(attribute: str) -> bool:
    """Whether no release's DataStreamWriter has `attribute` (looking it up raises), nor the
    Databricks Runtime's `table`; a private name may reach the JVM writer."""
    if attribute.startswith("_") or attribute == "table":
        return False
    return all(attribute not in names["DataStreamWriter"] for names in RELEASES.values())


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): parent for parent in ast.walk(tree)
            for child in ast.iter_child_nodes(parent)}


def _harmless(node: ast.Name, parents: dict[int, ast.AST],
              functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]],
              trees: list[ast.Module]) -> bool:
    """A read of the name that cannot start the writer: `name.<what no writer has>`, or the
    name handed as a positional argument to the one function of that name in the file,
    which uses its parameter only that way."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return no_writer_has(parent.attr)
    if not (isinstance(parent, ast.Call) and node in parent.args
            and isinstance(parent.func, ast.Name)):
        return False
    defined = functions.get(parent.func.id, [])
    if len(defined) != 1 or _rebound(parent.func.id, trees):
        return False
    function = defined[0]
    position = parent.args.index(node)
    if any(isinstance(a, ast.Starred) for a in parent.args[:position + 1]) \
            or position >= len(function.args.posonlyargs + function.args.args):
        return False
    parameter = (function.args.posonlyargs + function.args.args)[position].arg
    inner = _parents(function)
    for use in ast.walk(function):
        if isinstance(use, ast.Name) and use.id == parameter:
            outer = inner.get(id(use))
            if isinstance(use.ctx, ast.Store) or not (
                    isinstance(outer, ast.Attribute) and outer.value is use
                    and no_writer_has(outer.attr)):
                return False
    return True


def _rebound(function: str, trees: list[ast.Module]) -> bool:
    """Whether the function's name is also bound by something other than its def."""
    return any(isinstance(n, ast.Name) and n.id == function and not isinstance(n.ctx, ast.Load)
               for tree in trees for n in ast.walk(tree))
