"""Which top-level statement of a module holds a node, and which method of its class.

What can reach unread code starts from the statement holding it. Walking every statement (or
a big class's every method) to find it is slow, so the holder is found by lines first (the last
statement, or method, whose first name starts at or before the node's) and then checked.
"""

from __future__ import annotations

import libcst as cst

from streamlint.extract.positions import ModuleIndex, children_of, contains, first_name


def _top_of(index: ModuleIndex, node: cst.CSTNode) -> cst.CSTNode | None:
    """The top-level statement holding `node`; None when it is in none. The statement is
    found by lines (the last one starting at or before the node's first name), then checked."""
    if any(statement is node for statement in index.body):
        return node
    name = first_name(node)
    where = index.starts.get(id(name)) if name is not None else None
    if where is None:
        return next((s for s in index.body if contains(s, node)), None)
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
                                  or contains(candidate, node)):
        return candidate
    return next((s for s in index.body if contains(s, node)), None)


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
                    child.name.value in used and not contains(child, node)):
                found.append(child)
            elif isinstance(child, _BLOCKS):
                stack.append(child)
    return found



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
        if method is None or not contains(method, node):
            method = next((m for m in methods if contains(m, node)), None)
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
