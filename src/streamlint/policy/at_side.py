"""One version of a file as at_change.py reads it: its statements, the lines the change
touched, and which changed assignments bind the names a statement uses."""

from __future__ import annotations

import ast

from streamlint.extract.spark_values import SETTING_CALLS
from streamlint.extract.text import python_tree
from streamlint.extract.widgets import WIDGET_DECLARATIONS
from streamlint.policy.at_calls import Defined, all_calls, parameters
from streamlint.policy.at_names import (
    binds,
    first_line,
    heads,
    names_used,
    reads,
    statements,
    widget,
)

FOLLOW_ROUNDS = 6  # `A = B`, `B = settings.X`: how far unchanged assignments are followed


class Side:
    """One version of a file: its lines, its statements, the lines the change touched."""

    def __init__(self, text: str, python: bool = True) -> None:
        self.lines = text.splitlines()
        self.changed: set[int] = set()
        # the changed lines whose text the other version has in the same place but for its
        # spacing (`ON ` became `ON`): changed for a code host, not for Spark
        self.respaced: set[int] = set()
        # where lines of the other version were taken out with nothing in their place: the
        # line after which they were (0 before the first)
        self.cut: set[int] = set()
        tree = python_tree(text) if python else None
        self.tree: ast.Module | None = tree if isinstance(tree, ast.Module) else None
        # Every statement's span (a compound statement's header) and the bindings, read
        # once: a file's findings each look theirs up.
        self.spans: list[tuple[int, int, ast.stmt]] = []
        self.assignments: list[ast.stmt] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._calls: list[ast.Call] | None = None  # read when a call site is looked for
        self.statements = statements(self.tree) if self.tree is not None else []
        methods: set[int] = set()  # the functions of class bodies, by id
        self.owners: dict[int, str] = {}  # a method's class name, by the method's id
        for node in self.statements:
            if isinstance(node, ast.ClassDef):
                self.owners.update((id(item), node.name) for item in node.body
                                   if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))
                methods.update(id(item) for item in node.body
                               if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))
            end = node.end_lineno or node.lineno
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)
            self.spans.append((first_line(node), end, node))
            # `for key, value in options.items():` binds key and value from options
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For) or (
                    isinstance(node, ast.Expr) and widget(node.value, WIDGET_DECLARATIONS)):
                self.assignments.append(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(node)
        # Every function, methods marked (as `at_calls.functions` finds them, in its order).
        self.defined = [Defined(f, id(f) in methods) for f in self.functions]
        # The names the file binds itself (its assignments and functions, at any depth)
        self.bound = {n for s in self.assignments for n in binds(s)} | {
            f.name for f in self.functions}
        # Each assignment's scope: the innermost function holding it (None: the module's)
        self._scope: dict[int, ast.AST | None] = {id(s): None for s in self.assignments}
        for function in sorted(self.functions, key=lambda f: f.lineno - (f.end_lineno or 0)):
            for node in ast.walk(function):
                if node is not function and id(node) in self._scope:
                    self._scope[id(node)] = function

    def indent(self, line: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text) - len(text.lstrip())

    def cause(self, line: int, column: int = -1) -> int | None:
        """The changed line in this file that causes a finding at `line`; None when `line`
        changed itself or no single cause is found here. A finding about one setting (the
        `.option(...)` whose name is at `column`) looks inside that call only: another
        option of its chain that changed is not its cause."""
        if line in self.changed or self.tree is None:
            return None
        header = self._header(line)
        if header is None:
            return None
        start, end, _ = header
        called = self.setting_at(line, column)
        if called is not None:
            start, end = line, called.end_lineno or line
            inside = sorted(n for n in self.changed if start <= n <= end)
            return inside[0] if inside else None
        inside = sorted(n for n in self.changed if start <= n <= end)
        if inside:
            return inside[0]
        bindings = self._changed_bindings_used(line)
        return bindings[0] if len(bindings) == 1 else None

    def scope(self, line: int) -> tuple[ast.AST | None, int]:
        """Where `line` reads names: the function whose body holds it (None: the module),
        and the line itself (a function's assignment after it is no binding it reads)."""
        found = self.function_at(line)
        return (found.node if found is not None else None), line

    def bound_changed(self, line: int) -> bool:
        """Whether some changed assignment of this file binds a name the statement uses."""
        return bool(self._changed_bindings_used(line))

    def uses(self, line: int) -> tuple[set[str], set[tuple[str, str]]]:
        """The names the statement at `line` uses, and its `name.attribute` pairs, with what
        the unchanged assignments binding those names use in turn."""
        header = self._header(line)
        if header is None:
            return set(), set()
        names, attributes = names_used(header[2])
        return self._follow(names, attributes, self.scope(line))

    def uses_of(self, nodes: list[ast.expr]) -> tuple[set[str], set[tuple[str, str]]]:
        """What `uses` gives, of some expressions of this file (the arguments a call
        passes)."""
        names: set[str] = set()
        attributes: set[tuple[str, str]] = set()
        for node in nodes:
            used, pairs = names_used(node)
            names |= used
            attributes |= pairs
        return self._follow(names, attributes,
                            self.scope(nodes[0].lineno) if nodes else (None, 0))

    def closure(self, names: set[str], line: int) -> set[str]:
        """`names`, used at `line`, with what the unchanged assignments binding them use in
        turn."""
        return self._follow(set(names), set(), self.scope(line))[0]

    def names_at(self, line: int, column: int = -1) -> set[str]:
        """The names the statement at `line` uses on that line itself; of the method call
        whose name is at `column` there (`.partitionBy(*cols)`), its arguments' alone."""
        return self._on_line(line, column)[0]

    def uses_at(self, line: int, column: int = -1) -> tuple[set[str], set[tuple[str, str]]]:
        """What `uses` gives, of the names and `name.attribute` pairs on `line` alone (the
        `.option("subscribe", settings.TOPIC)` line of a chain of options), or of the
        arguments of the method called at `column` there."""
        return self._follow(*self._on_line(line, column), self.scope(line))

    def _on_line(self, line: int, column: int) -> tuple[set[str], set[tuple[str, str]]]:
        called = self.call_at(line, column)
        if called is not None:
            names: set[str] = set()
            attributes: set[tuple[str, str]] = set()
            for argument in (*called.args, *(k.value for k in called.keywords)):
                used, pairs = names_used(argument)
                names |= used
                attributes |= pairs
            return names, attributes
        header = self._header(line)
        on_line = [n for n in ast.walk(header[2]) if getattr(n, "lineno", None) == line
                   and (isinstance(n, ast.Name) or (isinstance(n, ast.Attribute)
                                                    and isinstance(n.value, ast.Name)))
                   ] if header is not None else []
        names = set()
        attributes = set()
        for node in on_line:
            used, pairs = names_used(node)
            names |= used
            attributes |= pairs
        return names, attributes

    def call_at(self, line: int, column: int) -> ast.Call | None:
        """The method call of the statement at `line` whose name starts at `column` there
        (where a finding about one option or one step points), if any."""
        header = self._header(line) if column >= 0 else None
        if header is None:
            return None
        for node in ast.walk(header[2]):
            func = getattr(node, "func", None)
            if (isinstance(node, ast.Call) and isinstance(func, ast.Attribute)
                    and func.end_lineno == line and func.end_col_offset is not None
                    and func.end_col_offset - len(func.attr) == column):
                return node
        return None

    def setting_at(self, line: int, column: int) -> ast.Call | None:
        """The call at `line` and `column` where it gives one setting (`.option(...)`,
        `.schema(...)`, `.partitionBy(...)`: `SETTING_CALLS`)."""
        called = self.call_at(line, column)
        if (called is not None and isinstance(called.func, ast.Attribute)
                and called.func.attr in SETTING_CALLS):
            return called
        return None

    def calls(self) -> list[ast.Call]:
        """Every call of the file (`at_calls.all_calls`), read the first time it is asked."""
        if self._calls is None:
            self._calls = all_calls(self.tree) if self.tree is not None else []
        return self._calls

    def function_at(self, line: int) -> Defined | None:
        """The innermost function whose body holds `line`."""
        holding = [d for d in self.defined if d.node.body
                   and d.node.body[0].lineno <= line <= (d.node.end_lineno or line)]
        return min(holding, key=lambda d: (d.node.end_lineno or 0) - d.node.lineno,
                   default=None)

    def conditions(self, line: int) -> list[ast.If]:
        """The `if` statements whose branches hold `line`, innermost first."""
        return sorted((s for s in self.statements if isinstance(s, ast.If)
                       and s.body[0].lineno <= line <= (s.end_lineno or s.lineno)),
                      key=lambda s: -s.lineno)

    def statement_span(self, line: int) -> tuple[int, int]:
        header = self._header(line)
        return (line, line) if header is None else (header[0], header[1])

    def changed_bindings_of(self, names: set[str], line: int) -> list[int]:
        """The first changed line of each assignment binding one of `names`, used at
        `line`."""
        return [n for s in self._binding(names, self.scope(line))
                for n in [self._first_changed(s)] if n is not None]

    def _binding(self, names: set[str], where: tuple[ast.AST | None, int]) -> list[ast.stmt]:
        """The assignments binding `names` where they are read (`scope`): a name a function
        assigns is its own (its assignments before the line reading it), any other the
        module's, never another function's (nor a parameter's: a call binds it); a field
        (`self.topic`) is the object's, wherever it is set."""
        scope, line = where
        # a function's parameters are its own too: what a call passes binds them
        own = {n for s in self.assignments if self._scope[id(s)] is scope
               for n in binds(s) & names} | set(parameters(scope)) if isinstance(
            scope, ast.FunctionDef | ast.AsyncFunctionDef) else set()
        return [s for s in self.assignments if (bound := binds(s) & names) and (
            (self._scope[id(s)] is scope and (scope is None or s.lineno <= line))
            or any(n.startswith("self.") for n in bound)
            or (self._scope[id(s)] is None and bound - own))]

    def _follow(self, names: set[str], attributes: set[tuple[str, str]],
                scope: tuple[ast.AST | None, int]) -> tuple[set[str], set[tuple[str, str]]]:
        for _ in range(FOLLOW_ROUNDS):
            more = [names_used(s.iter if isinstance(s, ast.For) else s)
                    for s in self._binding(names, scope) if not self._touched(s)]
            # an unchanged function called (`cfg = load_config(spark)`): what it reads of
            # the module (`spark.table(f"{META}.operation")` in its body reads META)
            more += [reads(d.node) for d in self.defined if not d.method
                     and d.node.name in names and not self._touched(d.node)]
            grown = set(names)
            for used, pairs in more:
                grown |= used
                attributes |= pairs
            if grown == names:
                break
            names = grown
        return names, attributes

    def changed_bindings(self, name: str) -> list[int]:
        """The first changed line of each statement binding `name` (an assignment, also in a
        class body, or a function's definition, whose body counts)."""
        # a field set in `__init__` (`self.topic = ...`) is one too
        found = [s for s in self.assignments if {name, f"self.{name}"} & binds(s)]
        found += [f for f in self.functions if f.name == name]
        changed = [n for s in found for n in [self._first_changed(s)] if n is not None]
        if changed or not found:
            return changed
        # `TOPIC = os.environ.get("TOPIC", DEFAULT_TOPIC)` unchanged: what it uses changed
        closure = self._follow({name}, set(), (None, 0))[0] - {name}
        return [n for s in self._binding(closure, (None, 0)) for n in [self._first_changed(s)]
                if n is not None]

    def _header(self, line: int) -> tuple[int, int, ast.AST] | None:
        """(first line, last line, node whose names count) of the statement at `line`: of a
        compound statement its header, whose names are not the body's."""
        statement = self._statement(line)
        if statement is None:
            return None
        start, end = first_line(statement), statement.end_lineno or statement.lineno
        body = getattr(statement, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            # a decorated def's header holds its decorators (`@dlt.table(partition_cols=..)`),
            # an `if` its condition, a `for` what it iterates, a `with` its contexts
            parts = [*getattr(statement, "decorator_list", ()), *heads(statement)]
            return (start, max(start, body[0].lineno - 1),
                    ast.Module([ast.Expr(p) for p in parts], []))
        return start, end, statement

    def _changed_bindings_used(self, line: int) -> list[int]:
        header = self._header(line)
        if header is None:
            return []
        return self.changed_bindings_of(names_used(header[2])[0], line)

    def _touched(self, statement: ast.stmt) -> bool:
        return self._first_changed(statement) is not None

    def _first_changed(self, statement: ast.stmt) -> int | None:
        """The first changed line of a statement (of a `for`, its header's)."""
        last = (statement.body[0].lineno - 1 if isinstance(statement, ast.For)
                else statement.end_lineno or statement.lineno)
        return next((n for n in range(statement.lineno, max(last, statement.lineno) + 1)
                     if n in self.changed), None)

    def _statement(self, line: int) -> ast.stmt | None:
        """The innermost statement holding `line` (of a compound one, its header)."""
        best: tuple[int, ast.stmt] | None = None
        for first, last, node in self.spans:
            if first <= line <= last and (best is None or last - first < best[0]):
                best = (last - first, node)
        return best[1] if best is not None else None
