"""Whether two versions of a query certainly reach their sink with the same column names even
where neither list of names is known (a DataFrame from code streamlint cannot follow, a join
with a static table whose columns it cannot see).

The names a query writes are a function of what it reads and of the steps that name columns.
When both versions read the same sources and take the same naming steps, only the values
computed under those names changed (`withColumn("amount", price * 1.0)` for `price`), which
is what PR02 allows. Anything else that might name a column differently keeps the question.
"""

from __future__ import annotations

from streamlint.diff.render import projections_text
from streamlint.model import COLUMN_MAPPING, Loc, Operator, Projection, Query, Sink, Source
from streamlint.model.expr import Alias, Column, Expr, Star
from streamlint.model.records import replace
from streamlint.rulebook.change import Code

# Steps that pass every column through under its name (they only choose rows, or mark one).
NAME_KEEPING = frozenset({"filter", "watermark", "expectation"})
# Projections whose output names are those of their expressions: an alias names its column.
NAMING = frozenset({"select", "selectExpr", "withColumn", "withColumns"})
_NOWHERE = Loc("", 0, 0)
# How PR02 shows columns it could not list but knows to be named as before.
SAME_NAMES = "not all known, but named by the same steps as before"


def same_names(old: Query, new: Query) -> bool:
    """True when the two versions certainly write the same column names (their types may
    differ, as PR02 says of known names too)."""
    if [_source(s) for s in old.sources] != [_source(s) for s in new.sources]:
        return False
    if any(op.kind == "static_join" for op in (*old.operators, *new.operators)):
        # A join's static side is recorded by its identity, not its steps: a column it
        # selects or renames is not seen here.
        return False
    if _notes(old) != _notes(new) or _expands(old) or _expands(new):
        return False
    steps_old = [op for op in old.operators if op.kind not in NAME_KEEPING]
    steps_new = [op for op in new.operators if op.kind not in NAME_KEEPING]
    return len(steps_old) == len(steps_new) and all(
        _naming(a) == _naming(b) for a, b in zip(steps_old, steps_new, strict=True))


def _source(source: Source) -> tuple:
    """What decides the columns a source gives: everything but its rate limits and place."""
    return (source.format, source.identity, source.options, source.schema, source.streaming)


def _notes(query: Query) -> list[str]:
    """The notes as people read them (`Note.shown`): a branch not read is compared on its
    own (diff/forks.py), not through the digest a note's text carries of it."""
    return sorted(str(text) for text, _ in query.unresolved)


def _expands(query: Query) -> bool:
    """A `select("o.*")`: its names are the fields of a struct computed upstream, so a changed
    expression there (a schema in `from_json`) renames columns under the same alias."""
    return any(isinstance(e, Star) and e.qualifier for op in query.operators
               if isinstance(op, Projection) for e in op.exprs)


def _naming(op: Operator) -> object:
    """What a step does to the names: a naming projection's output names (an expression
    without an alias is its own name); any other step as a whole, wherever it is written."""
    if isinstance(op, Projection) and op.method in NAMING:
        return (op.method, tuple(_name(e) for e in op.exprs))
    return replace(op, loc=_NOWHERE)


def _name(expr: Expr) -> object:
    return ("alias", expr.name) if isinstance(expr, Alias) else expr


def changed_steps(old: list[Projection], new: list[Projection]) -> tuple[Code, Code]:
    """The projections that differ, each version's (the steps written the same in both are the
    same code with the same inputs, whatever they leave unresolved)."""
    steps = [(a, b) for a, b in zip(old, new, strict=False) if a.exprs != b.exprs]
    return (projections_text([a for a, _ in steps] + old[len(new):]),
            projections_text([b for _, b in steps] + new[len(old):]))


def same_names_text(after: Code) -> Code:
    """The columns PR02 shows when it cannot list them; as unresolved as the new steps."""
    shown = Code(SAME_NAMES)
    shown.known = after.known
    return shown


def renamed(old: Query, new: Query) -> bool:
    """Whether the new version renames a column the old one wrote: a name gone from the
    output, another come, and the new version aliasing the old column to the new name
    (`col("a").alias("b")`, `withColumnRenamed("a", "b")`) where the old one did not."""
    if old.output_columns is None or new.output_columns is None:
        return False
    gone = set(old.output_columns) - set(new.output_columns)
    came = set(new.output_columns) - set(old.output_columns)
    return bool(_renames(new, gone, came) - _renames(old, gone, came))


def _renames(query: Query, gone: set[str], came: set[str]) -> set[tuple[str, str]]:
    return {(e.operand.name, e.name) for op in query.operators if isinstance(op, Projection)
            for e in op.exprs if isinstance(e, Alias) and isinstance(e.operand, Column)
            and e.operand.name in gone and e.name in came}


def column_mapping(old: Sink, new: Sink) -> str:
    """Whether both versions' table maps its columns by name or id ("on"), neither sets it
    ("off": Delta's default), or anything else ("unknown": a value known at run time, or
    column mapping turned on or off with the change)."""
    modes = {str(dict(s.options).get(COLUMN_MAPPING, "none")).lower() for s in (old, new)}
    if modes <= {"name", "id"}:
        return "on"
    return "off" if modes == {"none"} else "unknown"
