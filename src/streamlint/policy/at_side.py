"""One version of a file as at_change.py reads it: its statements, the lines the change
touched, and which changed assignments bind the names a statement uses."""

from __future__ import annotations

import ast
from collections import deque

from streamlint.extract.spark_values import SETTING_CALLS
from streamlint.extract.text import python_tree
from streamlint.extract.widgets import WIDGET_DECLARATIONS, WIDGET_READS
from streamlint.policy.at_calls import Defined, all_calls

FOLLOW_ROUNDS = 3  # `A = B`, `B = settings.X`: how far unchanged assignments are followed


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
        self.statements = _statements(self.tree) if self.tree is not None else []
        methods: set[int] = set()  # the functions of class bodies, by id
        for node in self.statements:
            if isinstance(node, ast.ClassDef):
                methods.update(id(item) for item in node.body
                               if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))
            end = node.end_lineno or node.lineno
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)
            self.spans.append((_first_line(node), end, node))
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) or (
                    isinstance(node, ast.Expr) and _widget(node.value, WIDGET_DECLARATIONS)):
                self.assignments.append(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(node)
        # Every function, methods marked (as `at_calls.functions` finds them, in its order).
        self.defined = [Defined(f, id(f) in methods) for f in self.functions]
        # The names the file binds itself (its assignments and functions, at any depth)
        self.bound = {n for s in self.assignments for n in _binds(s)} | {
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
        names, attributes = _used(header[2])
        return self._follow(names, attributes, self.scope(line))

    def uses_of(self, nodes: list[ast.expr]) -> tuple[set[str], set[tuple[str, str]]]:
        """What `uses` gives, of some expressions of this file (the arguments a call
        passes)."""
        names: set[str] = set()
        attributes: set[tuple[str, str]] = set()
        for node in nodes:
            used, pairs = _used(node)
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
                used, pairs = _used(argument)
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
            used, pairs = _used(node)
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
        module's, never another function's; a field (`self.topic`) is the object's, wherever
        it is set."""
        scope, line = where
        own = {n for s in self.assignments if self._scope[id(s)] is scope
               for n in _binds(s) & names} if scope is not None else set()
        return [s for s in self.assignments if (bound := _binds(s) & names) and (
            (self._scope[id(s)] is scope and (scope is None or s.lineno <= line))
            or any(n.startswith("self.") for n in bound)
            or (self._scope[id(s)] is None and bound - own))]

    def _follow(self, names: set[str], attributes: set[tuple[str, str]],
                scope: tuple[ast.AST | None, int]) -> tuple[set[str], set[tuple[str, str]]]:
        for _ in range(FOLLOW_ROUNDS):
            more = [_used(s) for s in self._binding(names, scope) if not self._touched(s)]
            # an unchanged function called (`cfg = load_config(spark)`): what it reads of
            # the module (`spark.table(f"{META}.operation")` in its body reads META)
            more += [_reads(d.node) for d in self.defined if not d.method
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
        found = [s for s in self.assignments if {name, f"self.{name}"} & _binds(s)]
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
        start, end = _first_line(statement), statement.end_lineno or statement.lineno
        body = getattr(statement, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            # a decorated def's header holds its decorators (`@dlt.table(partition_cols=..)`)
            decorators = [ast.Expr(d) for d in getattr(statement, "decorator_list", ())]
            return start, max(start, body[0].lineno - 1), ast.Module(decorators, [])
        return start, end, statement

    def _changed_bindings_used(self, line: int) -> list[int]:
        header = self._header(line)
        if header is None:
            return []
        return self.changed_bindings_of(_used(header[2])[0], line)

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


def _first_line(statement: ast.stmt) -> int:
    """A statement's first line: a decorated def's or class's first decorator."""
    decorators = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _used(node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
    """The names a node uses, `self.topic` among them as one name, and its `name.attribute`
    pairs."""
    attributes = {(n.value.id, n.attr) for n in ast.walk(node)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    # `dbutils.widgets.get("chk")` reads what `dbutils.widgets.text("chk", "/mnt/chk")` binds
    names |= {f"widget:{key}" for n in ast.walk(node)
              for key in [_widget(n, WIDGET_READS)] if key}
    return names | {f"{base}.{attr}" for base, attr in attributes}, attributes


def _reads(function: ast.FunctionDef | ast.AsyncFunctionDef
           ) -> tuple[set[str], set[tuple[str, str]]]:
    """What a function reads of its module, as `_used` gives it: the names its body uses that
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
        used, pairs = _used(statement)
        names |= {n for n in used if n.split(".")[0] not in local}
        attributes |= {(base, attr) for base, attr in pairs if base not in local}
    return names, attributes


def _widget(node: ast.AST, methods: tuple[str, ...]) -> str:
    """The name of the notebook widget a `dbutils.widgets.<method>("name", ...)` call is about
    (`methods`: declarations or reads), else ""."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "widgets" and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return ""
    return node.args[0].value


def _binds(statement: ast.stmt) -> set[str]:
    """The names an assignment binds: `self.topic = ...` binds `self.topic` (not `self`),
    `conf["topic"] = ...` changes `conf`; `dbutils.widgets.text("chk", "/mnt/chk")` binds
    the widget `chk`'s default."""
    if isinstance(statement, ast.Expr):
        return {f"widget:{_widget(statement.value, WIDGET_DECLARATIONS)}"}
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
