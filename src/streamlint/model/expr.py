"""Expressions as typed trees: what a column, a condition or a key *is*, whichever front end
wrote it.

DataFrame code (`F.sum("amount").alias("total")`) and Spark SQL (`SUM(amount) AS total`)
lower into the same nodes, so a rewrite from one to the other is not a change, and the diff
compares structure (a join key wrapped in `upper()` is another key) instead of reading text.
`render` gives the one canonical spelling used in messages.

Canonical forms every front end must produce (`call()` applies the function ones):
- function names are lower case, synonyms folded (`mean` → `avg`, `ucase` → `upper`);
  `count(1)`, `count(lit(1))` and `count(*)` are `count(*)`;
- comparison and boolean operators are SQL's: `=`, `!=`, `<`, `<=`, `>`, `>=`, `and`, `or`,
  `not` (Python's `==`, `&`, `|`, `~` on columns become these);
- predicates written as methods are calls: `isnull(x)`, `isnotnull(x)`, `in(x, a, b)`,
  `like(x, p)`, `rlike(x, p)`, `between(x, lo, hi)`, `startswith(x, p)`, `endswith(x, p)`,
  `contains(x, p)`; sort directions `asc(x)`, `desc(x)`;
- a duration in a window, a watermark or an interval literal is an `Interval` in
  microseconds: '1 hour' and INTERVAL 60 MINUTES are one value;
- a column's qualifier (a DataFrame alias or a SQL table alias) is kept on `Column`; compare
  with `unqualified()` where the qualifier only disambiguates.
"""

from __future__ import annotations

from collections.abc import Iterator

from streamlint.model.records import record

Scalar = str | int | float | bool | None


@record
class Column:
    """A reference to an input column: `col("x")`, `df.x`, `df["x"]`, `"x"`, SQL `t.x`."""

    name: str
    qualifier: str | None = None


@record
class Star:
    """`*` (every input column), `t.*` with a qualifier."""

    qualifier: str | None = None


@record
class Literal:
    """`lit(5)`, `'a'`, `TRUE`, `NULL`."""

    value: Scalar


@record
class Interval:
    """A duration, in microseconds (Spark's CalendarInterval for windows and watermarks)."""

    micros: int


@record
class Call:
    """A function: `sum(amount)`, `window(ts, 5 minutes)`, `count(DISTINCT user)`."""

    function: str
    args: tuple[Expr, ...] = ()
    distinct: bool = False


@record
class Cast:
    """`cast(x AS type)`, the type in Spark's simple string (`int`, `decimal(10,2)`)."""

    operand: Expr
    to: str


@record
class Alias:
    """An output name given to an expression: `.alias("n")`, `AS n`."""

    operand: Expr
    name: str


@record
class Binary:
    """`a + b`, `a = b`, `a and b`: `op` in SQL spelling (see the module's docstring)."""

    op: str
    left: Expr
    right: Expr


@record
class Unary:
    """`not x`, `-x`."""

    op: str
    operand: Expr


@record
class Field:
    """A struct field, map key or array index: `x.f`, `x["k"]`, `x[0]`, `x.getField("f")`."""

    operand: Expr
    key: str | int


@record
class Case:
    """`when(c, v).when(...).otherwise(d)`, `CASE WHEN c THEN v ... ELSE d END`."""

    branches: tuple[tuple[Expr, Expr], ...]
    default: Expr | None = None


@record
class Unresolved:
    """A part static analysis could not pin down; `code` is the code that produced it. Two
    with the same code compare equal: the same code in both versions is the same value."""

    code: str
    unread: str = ""  # as `Unknown.unread`: a file streamlint could not read gave it
    shown: str = ""  # as `Unknown.shown`: the code as written, where `code` says more

    __record_compare__ = ("code", "unread")


Expr = (Column | Star | Literal | Interval | Call | Cast | Alias | Binary | Unary | Field
        | Case | Unresolved)


@record
class Definition:
    """How a column reaching a stateful operator was computed: `name = expr`."""

    name: str
    expr: Expr


# -- building --------------------------------------------------------------------------------

SYNONYMS = {
    "mean": "avg", "ucase": "upper", "lcase": "lower", "substr": "substring",
    "std": "stddev", "stddev_samp": "stddev", "variance": "var_samp", "any": "bool_or",
    "some": "bool_or", "every": "bool_and", "char_length": "length",
    "character_length": "length", "power": "pow", "ceiling": "ceil", "isnotnull": "isnotnull",
    "approxcountdistinct": "approx_count_distinct", "countdistinct": "count",
    "sumdistinct": "sum", "first_value": "first", "last_value": "last",
}
WINDOW_FUNCTIONS = frozenset({"window", "session_window"})


def between(value: Expr, low: Expr, high: Expr) -> Expr:
    """`value BETWEEN low AND high` as Spark's analyzer rewrites it (`value >= low AND
    value <= high`), so that the two spellings of one condition are the same expression."""
    return Binary("and", Binary(">=", value, low), Binary("<=", value, high))


def call(function: str, *args: Expr, distinct: bool = False) -> Call:
    """A call in canonical form: lower-case name, synonyms folded, `count(1)` as `count(*)`."""
    name = function.lower()
    if name in ("countdistinct", "sumdistinct"):
        distinct = True
    name = SYNONYMS.get(name, name)
    if name == "count" and len(args) == 1 and args[0] == Literal(1):
        args = (Star(),)
    return Call(name, tuple(args), distinct)


# -- reading ---------------------------------------------------------------------------------


def children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, Cast | Alias | Unary | Field):
        return (expr.operand,)
    if isinstance(expr, Binary):
        return (expr.left, expr.right)
    if isinstance(expr, Case):
        parts = [e for branch in expr.branches for e in branch]
        return (*parts, expr.default) if expr.default is not None else tuple(parts)
    return ()


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of the tree, parents before children."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def refs(expr: Expr) -> frozenset[str]:
    """The input column names an expression reads (`*` for a star)."""
    names = set()
    for node in walk(expr):
        if isinstance(node, Column):
            names.add(node.name)
        elif isinstance(node, Star):
            names.add("*")
    return frozenset(names)


def is_known(expr: Expr) -> bool:
    return not any(isinstance(node, Unresolved) for node in walk(expr))


def unaliased(expr: Expr) -> Expr:
    while isinstance(expr, Alias):
        expr = expr.operand
    return expr


def output_name(expr: Expr) -> str | None:
    """The column name Spark gives the expression's result, when it is a plain one."""
    if isinstance(expr, Alias):
        return expr.name
    if isinstance(expr, Column):
        return expr.name
    if isinstance(expr, Field) and isinstance(expr.key, str):
        return expr.key
    if isinstance(expr, Call) and expr.function in WINDOW_FUNCTIONS:
        return "window"
    return None


def unqualified(expr: Expr) -> Expr:
    """The expression with every column qualifier dropped (`l.id` → `id`)."""
    if isinstance(expr, Column) and expr.qualifier is not None:
        return Column(expr.name)
    if isinstance(expr, Star) and expr.qualifier is not None:
        return Star()
    if isinstance(expr, Call):
        return Call(expr.function, tuple(unqualified(a) for a in expr.args), expr.distinct)
    if isinstance(expr, Cast):
        return Cast(unqualified(expr.operand), expr.to)
    if isinstance(expr, Alias):
        return Alias(unqualified(expr.operand), expr.name)
    if isinstance(expr, Binary):
        return Binary(expr.op, unqualified(expr.left), unqualified(expr.right))
    if isinstance(expr, Unary):
        return Unary(expr.op, unqualified(expr.operand))
    if isinstance(expr, Field):
        return Field(unqualified(expr.operand), expr.key)
    if isinstance(expr, Case):
        return Case(tuple((unqualified(c), unqualified(v)) for c, v in expr.branches),
                    None if expr.default is None else unqualified(expr.default))
    return expr


def conjuncts(expr: Expr | None) -> tuple[Expr, ...]:
    """`a and b and c` as (a, b, c); nothing for no condition."""
    if expr is None:
        return ()
    if isinstance(expr, Binary) and expr.op == "and":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return (expr,)


# -- rendering -------------------------------------------------------------------------------

_UNITS = ((604_800_000_000, "week"), (86_400_000_000, "day"), (3_600_000_000, "hour"),
          (60_000_000, "minute"), (1_000_000, "second"), (1_000, "millisecond"),
          (1, "microsecond"))


def render_interval(micros: int) -> str:
    for size, unit in _UNITS:
        if micros and micros % size == 0:
            count = micros // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return "0 seconds"


def _literal(value: Scalar) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def render(expr: Expr) -> str:
    """The canonical spelling, SQL-like, for messages: `sum(amount) AS total`."""
    if isinstance(expr, Column):
        return f"{expr.qualifier}.{expr.name}" if expr.qualifier else expr.name
    if isinstance(expr, Star):
        return f"{expr.qualifier}.*" if expr.qualifier else "*"
    if isinstance(expr, Literal):
        return _literal(expr.value)
    if isinstance(expr, Interval):
        return f"INTERVAL {render_interval(expr.micros)}"
    if isinstance(expr, Call):
        inner = ", ".join(render(a) for a in expr.args)
        return f"{expr.function}({'DISTINCT ' if expr.distinct else ''}{inner})"
    if isinstance(expr, Cast):
        return f"cast({render(expr.operand)} AS {expr.to})"
    if isinstance(expr, Alias):
        return f"{render(expr.operand)} AS {expr.name}"
    if isinstance(expr, Binary):
        op = expr.op.upper() if expr.op in ("and", "or") else expr.op
        return f"({render(expr.left)} {op} {render(expr.right)})"
    if isinstance(expr, Unary):
        return f"NOT {render(expr.operand)}" if expr.op == "not" else f"-{render(expr.operand)}"
    if isinstance(expr, Field):
        key = expr.key
        return (f"{render(expr.operand)}.{key}" if isinstance(key, str) and key.isidentifier()
                else f"{render(expr.operand)}[{_literal(key)}]")
    if isinstance(expr, Case):
        parts = " ".join(f"WHEN {render(c)} THEN {render(v)}" for c, v in expr.branches)
        default = f" ELSE {render(expr.default)}" if expr.default is not None else ""
        return f"CASE {parts}{default} END"
    return expr.shown or expr.code
