"""Findings placed at the change: the line the pull request touched that causes them.

A finding is located where the query uses what changed: the `groupBy` of a chain whose
`.agg(sum)` became `.agg(max)` two lines further, the `.option("checkpointLocation", CHECKPOINT)`
of a constant changed at the top of the file. A code host shows an annotation in a pull
request's diff only on a changed line, so a finding whose line did not change moves to the
changed line that causes it, and keeps its old place as a related location (SARIF's
`relatedLocations`, a `used at:` line in text):

- a changed line inside the statement the finding points at (the chain's `.agg(...)` line);
- else the changed assignment of a name that statement uses (`CHECKPOINT = ...`);
- else, in another file of the repository the job was followed into, the changed statement
  that binds what the statement imports from there: `from conf import TOPIC` and a changed
  `TOPIC = ...` in conf.py, `settings.TOPIC` and a changed `TOPIC: str = ...` in the module
  `settings` comes from, a changed `def topic():` called there.

Names the statement uses that are bound by unchanged assignments of its file are followed to
what those use (`TOPIC = settings.TOPIC`). Only one cause moves a finding: where several
changed bindings could be it, which one did is not told, and the finding stays where the
query uses them. Findings in a helper module the job was followed into move alike. Both
versions move alike, so the old and new snippets show the difference. Notebooks in their JSON
form are left as they are.
"""

from __future__ import annotations

import ast
import difflib
import posixpath
from collections import deque

from streamlint.extract.text import python_tree
from streamlint.model import Loc
from streamlint.model.records import replace
from streamlint.rulebook.matrix import Finding

Source = tuple[str, str, str]  # (root-relative path, path as locations show it, text)
FOLLOW_ROUNDS = 3  # `A = B`, `B = settings.X`: how far unchanged assignments are followed


def at_change(findings: tuple[Finding, ...], old_text: str, old_path: str, new_text: str,
              new_path: str, old_sources: tuple[Source, ...] = (),
              new_sources: tuple[Source, ...] = ()) -> tuple[Finding, ...]:
    """The findings, each one whose line did not change moved to the change causing it.

    `old_sources` and `new_sources` are the repository files each version's code was
    followed into (`JobFile.sources`)."""
    if not old_text or not new_text or new_path.lower().endswith(".ipynb"):
        return findings
    old = _Version(old_path, old_text, old_sources)
    new = _Version(new_path, new_text, new_sources)
    if not any(_movable(f, new) for f in findings):
        return findings
    _mark_changes(old, new)
    out: list[Finding] = []
    for finding in findings:
        if not _movable(finding, new):
            out.append(finding)
            continue
        assert finding.new is not None
        cause = new.cause(finding.new.path, finding.new.line)
        if cause is None:
            out.append(finding)
            continue
        moved_old = finding.old
        if finding.old is not None and finding.old.path in old.by_shown:
            moved_old = old.cause(finding.old.path, finding.old.line) or finding.old
        out.append(replace(finding, new=cause, old=moved_old,
                           related=(*finding.related, finding.new)))
    return tuple(out)


def _movable(finding: Finding, new: _Version) -> bool:
    return finding.new is not None and finding.new.path in new.by_shown and not finding.related


def _mark_changes(old: _Version, new: _Version) -> None:
    """Each file's changed lines on both sides: the job against the job, a module against
    the module of the same repository path (a file the other version lacks changed whole)."""
    pairs = [(path if path in old.files else None, path if path in new.files else None)
             for path in sorted(set(old.files) | set(new.files))]
    for before, after in pairs:
        a = old.file(before) if before is not None else None
        b = new.file(after) if after is not None else None
        lines_a = a.lines if a is not None else []
        lines_b = b.lines if b is not None else []
        if lines_a == lines_b:
            continue
        matcher = difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                if a is not None:
                    a.changed.update(range(i1 + 1, i2 + 1))
                if b is not None:
                    b.changed.update(range(j1 + 1, j2 + 1))


class _Version:
    """One version of the job: its file and the repository files its code was followed into,
    by root-relative path (the job's own key is `job`)."""

    def __init__(self, path: str, text: str, sources: tuple[Source, ...]) -> None:
        self.job = "\0job"
        self.files: dict[str, str] = {self.job: path}  # key -> shown path
        self.texts: dict[str, str] = {path: text}
        self.by_shown: dict[str, str] = {path: self.job}
        self.relpath: dict[str, str] = {}  # shown path -> root-relative path
        for relpath, shown, source_text in sources:
            if shown == path:
                self.relpath[path] = relpath
                continue
            self.files[relpath] = shown
            self.texts[shown] = source_text
            self.relpath[shown] = relpath
            if relpath.endswith(".py"):
                self.by_shown[shown] = relpath
        self._sides: dict[str, _Side] = {}

    def file(self, key: str) -> _Side:
        shown = self.files[key]
        if shown not in self._sides:
            self._sides[shown] = _Side(self.texts[shown], key == self.job or key.endswith(".py"))
        return self._sides[shown]

    def cause(self, path: str, line: int) -> Loc | None:
        """Where the change causing a finding at `path:line` is, None when that line changed
        itself or no single cause is found."""
        side = self.file(self.by_shown[path])
        if side.tree is None or line in side.changed:
            return None
        found = side.cause(line)
        if found is not None:
            return Loc(path, found, side.indent(found))
        if side.bound_changed(line):
            return None  # several changed bindings in the file itself: not told which
        return self._imported_cause(path, side, line)

    def _imported_cause(self, path: str, side: _Side, line: int) -> Loc | None:
        """The one changed binding, in another file, of what the statement imports."""
        names, attributes = side.uses(line)
        imports = _imports(side.tree, self.relpath.get(path, ""))
        wanted: set[tuple[str, str]] = set()  # (root-relative module path, member name)
        for local, (module, member) in imports.items():
            if local not in names and not any(base == local for base, _ in attributes):
                continue
            # `from conf import settings` takes the module conf/settings.py, if there is one
            submodule = None if member is None else self._module(
                f"{module}/{member}" if "/" in module else f"{module}.{member}".lstrip("."))
            if submodule is not None:
                target, member = submodule, None
            else:
                target = self._module(module)
            if target is None:
                continue
            if member is not None and local in names:
                wanted.add((target, member))
            wanted.update((target, attr) for base, attr in attributes if base == local)
        causes = {(module, n) for module, member in wanted
                  for n in self.file(module).changed_bindings(member)}
        if len(causes) != 1:
            return None
        module, found = next(iter(causes))
        return Loc(self.files[module], found, self.file(module).indent(found))

    def _module(self, dotted: str) -> str | None:
        """The followed file of a module (`conf.settings`, or a root-relative path for a
        relative import), None when the job's code was not followed into it."""
        tail = dotted.replace(".", "/") if "/" not in dotted else dotted
        for candidate in (f"{tail}.py", f"{tail}/__init__.py"):
            found = [p for p in self.files if p.endswith(".py") and p != self.job
                     and (p == candidate or p.endswith("/" + candidate))]
            if len(found) == 1:
                return found[0]
        return None


def _imports(tree: ast.Module | None, relpath: str) -> dict[str, tuple[str, str | None]]:
    """Each name a file's imports bind: (the module, the member taken from it or None for
    the module itself); a relative import's module as a root-relative path."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None or "." not in alias.name:
                    out[alias.asname or alias.name] = (alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                folder = posixpath.dirname(relpath)
                for _ in range(node.level - 1):
                    folder = posixpath.dirname(folder)
                module = posixpath.join(folder, module.replace(".", "/")).strip("/")
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = (module, alias.name)
    return out


class _Side:
    """One version of a file: its lines, its statements, the lines the change touched."""

    def __init__(self, text: str, python: bool = True) -> None:
        self.lines = text.splitlines()
        self.changed: set[int] = set()
        tree = python_tree(text) if python else None
        self.tree: ast.Module | None = tree if isinstance(tree, ast.Module) else None
        # Every statement's span (a compound statement's header) and the bindings, read
        # once: a file's findings each look theirs up.
        self.spans: list[tuple[int, int, ast.stmt]] = []
        self.assignments: list[ast.stmt] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for node in _statements(self.tree) if self.tree is not None else ():
            end = node.end_lineno or node.lineno
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)
            self.spans.append((node.lineno, end, node))
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                self.assignments.append(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(node)

    def indent(self, line: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text) - len(text.lstrip())

    def cause(self, line: int) -> int | None:
        """The changed line in this file that causes a finding at `line`; None when `line`
        changed itself or no single cause is found here."""
        if line in self.changed or self.tree is None:
            return None
        header = self._header(line)
        if header is None:
            return None
        start, end, _ = header
        inside = sorted(n for n in self.changed if start <= n <= end)
        if inside:
            return inside[0]
        bindings = self._changed_bindings_used(line)
        return bindings[0] if len(bindings) == 1 else None

    def bound_changed(self, line: int) -> bool:
        """Whether some changed assignment of this file binds a name the statement uses."""
        return bool(self._changed_bindings_used(line))

    def uses(self, line: int) -> tuple[set[str], set[tuple[str, str]]]:
        """The names the statement at `line` uses, and its `name.attribute` pairs, with what
        the unchanged assignments binding those names use in turn."""
        header = self._header(line)
        if header is None:
            return set(), set()
        names, attributes = _used(header[2])
        for _ in range(FOLLOW_ROUNDS):
            more = [s for s in self.assignments if _binds(s) & names
                    and not self._touched(s)]
            grown = set(names)
            for statement in more:
                used, pairs = _used(statement)
                grown |= used
                attributes |= pairs
            if grown == names:
                break
            names = grown
        return names, attributes

    def changed_bindings(self, name: str) -> list[int]:
        """The first changed line of each statement binding `name` (an assignment, also in a
        class body, or a function's definition, whose body counts)."""
        found = [s for s in self.assignments if name in _binds(s)]
        found += [f for f in self.functions if f.name == name]
        return [n for s in found for n in [self._first_changed(s)] if n is not None]

    def _header(self, line: int) -> tuple[int, int, ast.AST] | None:
        """(first line, last line, node whose names count) of the statement at `line`: of a
        compound statement its header, whose names are not the body's."""
        statement = self._statement(line)
        if statement is None:
            return None
        start, end = statement.lineno, statement.end_lineno or statement.lineno
        body = getattr(statement, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            return start, max(start, body[0].lineno - 1), ast.Module([], [])
        return start, end, statement

    def _changed_bindings_used(self, line: int) -> list[int]:
        header = self._header(line)
        if header is None:
            return []
        used = {n.id for n in ast.walk(header[2]) if isinstance(n, ast.Name)}
        return [n for s in self.assignments if _binds(s) & used
                for n in [self._first_changed(s)] if n is not None]

    def _touched(self, statement: ast.stmt) -> bool:
        return self._first_changed(statement) is not None

    def _first_changed(self, statement: ast.stmt) -> int | None:
        return next((n for n in range(statement.lineno,
                                      (statement.end_lineno or statement.lineno) + 1)
                     if n in self.changed), None)

    def _statement(self, line: int) -> ast.stmt | None:
        """The innermost statement holding `line` (of a compound one, its header)."""
        best: tuple[int, ast.stmt] | None = None
        for first, last, node in self.spans:
            if first <= line <= last and (best is None or last - first < best[0]):
                best = (last - first, node)
        return best[1] if best is not None else None


def _used(node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    attributes = {(n.value.id, n.attr) for n in ast.walk(node)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return names, attributes


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
