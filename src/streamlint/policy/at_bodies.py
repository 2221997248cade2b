"""Causes inside a function's body or an `if`'s branches (at_change.py).

Two shapes put a finding on a line the change did not touch while the change is a few lines
away, inside code that line names:

- `.foreachBatch(upsert)`: what the sink function writes changed, and the change is inside
  `def upsert(batch, epoch_id):` (or in a function `upsert` calls, or in the method
  `self._load_component` that an unchanged `self.transformer = ...` the line reads calls).
  The cause is the first changed line of that function, its `def` line and body, where it
  holds code (a changed comment, blank line or docstring changes nothing Spark runs, nor
  does a line only respaced, `ON ` become `ON` in a SQL text).
- `if cfg["schema"] is not None:`: the DataFrame depends on a run-time condition whose other
  branch streamlint does not read, and that code changed. The cause is the first changed
  line of the whole `if` statement: its test, its branch, its `elif`s and `else`.

A function counts where the line names it: `upsert` bound by a `def` of the file that the
line can see (at the top level, or nested in a function holding the line), `self.name` or
`cls.name` a method of the file. Functions of other files are the imports' business
(at_change.py follows a name imported from a followed file to its changed `def`). Where the
named functions are unchanged, the functions they name are looked at, nearest first; where
two functions at the same distance changed, which one causes the finding is not told, and
none is returned alone.
"""

from __future__ import annotations

import ast

from streamlint.policy.at_calls import Defined
from streamlint.policy.at_names import binds, names_used
from streamlint.policy.at_side import Side

BODY_DEPTH = 3  # `foreachBatch(run)`, `run` calls `write`, `write` calls `merge`: how deep


def body_causes(side: Side, names: set[str], line: int) -> set[int]:
    """The first changed line holding code of each function `names` name, as seen from
    `line`, whose code changed; where none did, of the functions those name, and so on to
    BODY_DEPTH. Empty when none changed; more than one when which is not told."""
    level = _named(side, names, line)
    seen: set[int] = set()
    for _ in range(BODY_DEPTH):
        changed = {n for d in level for n in [changed_code(side, d.node)] if n is not None}
        if changed or not level:
            return changed
        seen.update(id(d.node) for d in level)
        level = [found for d in level
                 for found in _named(side, _names_in(d.node), d.node.body[0].lineno)
                 if id(found.node) not in seen]
    return set()


def branch_cause(side: Side, line: int) -> int | None:
    """For a finding at the header of an `if` (its condition), the first changed line holding
    code of the whole statement: its test, then its branches in order. None for any other
    line, or where none of it changed."""
    statement = _condition_at(side, line)
    if statement is None:
        return None
    return _first_code(side, statement.lineno, statement.end_lineno or statement.lineno,
                       set())


def branch_names(side: Side, line: int) -> set[str]:
    """For a finding at the header of an `if`, the names the whole statement uses (what
    its branches are built from); none for any other line."""
    statement = _condition_at(side, line)
    return set() if statement is None else _names_in(statement)


def after_cause(side: Side, line: int) -> set[int]:
    """Last, for a finding at the header of an `if`: the first changed line of code of each
    statement after it, in the function holding it (or the module), that reads what its
    branches bind (`output.option("checkpointLocation", ...)` after the `if` that set
    `output` one way or the other)."""
    statement = _condition_at(side, line)
    if statement is None:
        return set()
    assignments = {id(node) for node in side.assignments}
    bound = {name for node in ast.walk(statement) if id(node) in assignments
             for name in binds(node)}  # type: ignore[arg-type]
    end = statement.end_lineno or statement.lineno
    holder = side.function_at(line)
    last = (holder.node.end_lineno or end) if holder is not None else len(side.lines)
    found: set[int] = set()
    for first, stop, node in side.spans:
        if (end < first <= last and not hasattr(node, "body")
                and names_used(node)[0] & bound):
            changed = _first_code(side, first, stop, set())
            if changed is not None:
                found.add(changed)
    return found


def def_cause(side: Side, line: int) -> int | None:
    """For a finding at a function's `def` line or decorators (a pipeline's flow is its
    function), the first changed line of code of its body, else of the one function it
    calls whose code changed (`conformed_bronze()`, which now reads a stream)."""
    for function in side.functions:
        first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
        if function.body and first <= line < function.body[0].lineno:
            found = changed_code(side, function)
            if found is not None:
                return found
            called = body_causes(side, _names_in(function), function.body[0].lineno)
            return called.pop() if len(called) == 1 else None
    return None


def header_changed(side: Side, line: int) -> set[int]:
    """Last, for a finding in a function's body: the first changed line of that function's
    `def` line and decorators (`@dlt.table` become `@dlt.view`: what its reads feed
    changed), empty where they did not change."""
    holding = side.function_at(line)
    if holding is None:
        return set()
    function = holding.node
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    found = _first_code(side, first, function.body[0].lineno - 1, set())
    return {found} if found is not None else set()


def cut_inside(side: Side, line: int) -> bool:
    """Whether lines were taken out from between two lines of the statement at `line` (a
    removed `.option(...)` of its chain): the statement changed where no line of it shows."""
    first, last = side.statement_span(line)
    return any(first <= n < last for n in side.cut)


def _condition_at(side: Side, line: int) -> ast.If | None:
    """The `if` statement whose header holds `line`, if the innermost statement there is one."""
    holding = [(last - first, node) for first, last, node in side.spans
               if first <= line <= last]
    if not holding:
        return None
    _, statement = min(holding, key=lambda pair: pair[0])
    return statement if isinstance(statement, ast.If) else None


def mark_respaced(a: Side, b: Side, old: tuple[int, int], new: tuple[int, int]) -> None:
    """The lines of a replaced block that the other side's block has but for their spacing
    after the indentation (which, in Python, says what the line belongs to)."""
    before = {_spacing(a.lines[n]) for n in range(*old)}
    after = {_spacing(b.lines[n]) for n in range(*new)}
    a.respaced.update(n + 1 for n in range(*old) if _spacing(a.lines[n]) in after)
    b.respaced.update(n + 1 for n in range(*new) if _spacing(b.lines[n]) in before)


def _spacing(line: str) -> str:
    """A line with its spacing after the indentation made one space, none at its end."""
    text = line.lstrip()
    return line[:len(line) - len(text)] + " ".join(text.split())


def _named(side: Side, names: set[str], line: int) -> list[Defined]:
    """The functions of the file that `names` name, as seen from `line`."""
    out: list[Defined] = []
    for defined in side.defined:
        name = defined.node.name
        if defined.method:
            if {f"self.{name}", f"cls.{name}"} & names:
                out.append(defined)
            continue
        if name not in names:
            continue
        holder = side.function_at(defined.node.lineno)
        if holder is None or (holder.node.body[0].lineno <= line
                              <= (holder.node.end_lineno or line)):
            out.append(defined)
    return out


def _names_in(code: ast.AST) -> set[str]:
    """The names some code uses, `self.name` among them as one name."""
    names: set[str] = set()
    for node in ast.walk(code):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names.add(f"{node.value.id}.{node.attr}")
    return names


def changed_code(side: Side, function: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """The first changed line holding code of a function, its decorators and `def` line
    among it, its docstring not."""
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    docstring: set[int] = set()
    head = function.body[0]
    if (isinstance(head, ast.Expr) and isinstance(head.value, ast.Constant)
            and isinstance(head.value.value, str)):
        docstring = set(range(head.lineno, (head.end_lineno or head.lineno) + 1))
    return _first_code(side, first, function.end_lineno or function.lineno, docstring)


def _first_code(side: Side, first: int, last: int, skip: set[int]) -> int | None:
    """The first changed line from `first` to `last` that holds code: not blank, not only a
    comment, not only respaced, not in `skip`."""
    for n in range(first, last + 1):
        if (n in side.changed and n not in side.respaced and n not in skip
                and 0 < n <= len(side.lines)):
            text = side.lines[n - 1].strip()
            if text and not text.startswith("#"):
                return n
    return None
