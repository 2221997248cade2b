"""Findings placed at the change: the line the pull request touched that causes them.

A finding is located where the query uses what changed: the `groupBy` of a chain whose
`.agg(sum)` became `.agg(max)` two lines further, the `.option("checkpointLocation", CHECKPOINT)`
of a constant changed at the top of the file. A code host shows an annotation in a pull
request's diff only on a changed line, so a finding whose line did not change moves to the
changed line that causes it, and keeps its old place as a related location (SARIF's
`relatedLocations`, a `used at:` line in text):

- a changed line inside the statement the finding points at (the chain's `.agg(...)` line);
- else the changed assignment of a name that statement uses (`CHECKPOINT = ...`).

Both versions move alike, so the old and new snippets show the difference. Where neither is
found (the cause is in another file, a configuration value, a helper) the finding stays.
Only the job file's own findings move; notebooks in their JSON form are left as they are.
"""

from __future__ import annotations

import ast
import difflib
from collections import deque

from streamlint.extract.text import python_tree
from streamlint.model import Loc
from streamlint.model.records import replace
from streamlint.rulebook.matrix import Finding


def at_change(findings: tuple[Finding, ...], old_text: str, old_path: str, new_text: str,
              new_path: str) -> tuple[Finding, ...]:
    """The findings, each one whose line did not change moved to the change causing it."""
    if not old_text or not new_text or new_path.lower().endswith(".ipynb") \
            or old_text == new_text or not any(_movable(f, new_path) for f in findings):
        return findings
    old = _Side(old_text)
    new = _Side(new_text)
    if old.tree is None or new.tree is None:
        return findings
    matcher = difflib.SequenceMatcher(None, old.lines, new.lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            old.changed.update(range(i1 + 1, i2 + 1))
            new.changed.update(range(j1 + 1, j2 + 1))
    out: list[Finding] = []
    for finding in findings:
        if not _movable(finding, new_path):
            out.append(finding)
            continue
        assert finding.new is not None
        line = new.cause(finding.new.line)
        if line is None:
            out.append(finding)
            continue
        moved_old = finding.old
        if finding.old is not None and finding.old.path == old_path:
            old_line = old.cause(finding.old.line)
            if old_line is not None:
                moved_old = Loc(old_path, old_line, old.indent(old_line))
        out.append(replace(finding, new=Loc(new_path, line, new.indent(line)), old=moved_old,
                           related=(*finding.related, finding.new)))
    return tuple(out)


def _movable(finding: Finding, path: str) -> bool:
    return finding.new is not None and finding.new.path == path and not finding.related


class _Side:
    """One version of the file: its lines, its statements, the lines the change touched."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.changed: set[int] = set()
        tree = python_tree(text)
        self.tree: ast.Module | None = tree if isinstance(tree, ast.Module) else None
        # Every statement's span (a compound statement's header) and the assignments, read
        # once: a file's findings each look theirs up.
        self.spans: list[tuple[int, int, ast.stmt]] = []
        self.assignments: list[ast.stmt] = []
        for node in _statements(self.tree) if self.tree is not None else ():
            end = node.end_lineno or node.lineno
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)
            self.spans.append((node.lineno, end, node))
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                self.assignments.append(node)

    def indent(self, line: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text) - len(text.lstrip())

    def cause(self, line: int) -> int | None:
        """The changed line that causes a finding at `line`; None when `line` changed itself
        or no cause is found."""
        if line in self.changed or self.tree is None:
            return None
        statement = self._statement(line)
        if statement is None:
            return None
        start, end = statement.lineno, statement.end_lineno or statement.lineno
        body = getattr(statement, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(start, body[0].lineno - 1)  # a header: `with (...):`, `def f(...):`
            statement = ast.Module([], [])  # its names are not the body's
        inside = sorted(n for n in self.changed if start <= n <= end)
        if inside:
            return inside[0]
        used = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
        bindings = [s for s in self.assignments if _binds(s) & used
                    and any(n in self.changed
                            for n in range(s.lineno, (s.end_lineno or s.lineno) + 1))]
        if len(bindings) != 1:  # none, or several changed: which one caused it is not told
            return None
        bound = bindings[0]
        return next(n for n in range(bound.lineno, (bound.end_lineno or bound.lineno) + 1)
                    if n in self.changed)

    def _statement(self, line: int) -> ast.stmt | None:
        """The innermost statement holding `line` (of a compound one, its header)."""
        best: tuple[int, ast.stmt] | None = None
        for first, last, node in self.spans:
            if first <= line <= last and (best is None or last - first < best[0]):
                best = (last - first, node)
        return best[1] if best is not None else None


def _binds(statement: ast.stmt) -> set[str]:
    targets = (statement.targets if isinstance(statement, ast.Assign)
               else [statement.target])  # type: ignore[attr-defined]
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


# What can hold a statement: a statement, an `except` clause, a `case` of a `match`.
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree: ast.Module) -> list[ast.stmt]:
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
