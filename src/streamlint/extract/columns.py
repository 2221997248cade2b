"""Column expressions as trees (`streamlint.model.expr`): one shape however a column is written.

`F.col("x")`, `col("x")`, `"x"`, `df.x`, `df["x"]` and `expr("x")` are all `Column("x")`;
operators, methods and SQL strings build on that, so two versions compare by meaning, not by
how they were typed. `plain` turns what is left into model values (plain data or `Unknown`),
so no symbolic object reaches the records the diff compares.
"""

from __future__ import annotations

from typing import Any

from streamlint.extract.registry import NEXT
from streamlint.extract.spark_values import Col, Schema, column
from streamlint.extract.sql.bridge import to_col
from streamlint.extract.sql.parse import parse_expression
from streamlint.extract.sql.simple import parse_simple
from streamlint.extract.values import BoundMethod, Function, FunctionRef, PathValue
from streamlint.model import Note, OverridableNumber, Template, Unknown, code_of, origins_of
from streamlint.model.durations import duration_micros
from streamlint.model.expr import (
    Alias,
    Binary,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Field,
    Interval,
    Literal,
    Unary,
    Unresolved,
    between,
    call,
    render,
    unaliased,
)
from streamlint.model.schema_text import normalize_type

# Arguments that are literals, not column names, by position (pyspark.sql.functions).
LITERAL_ARGS = {
    "window": {1, 2, 3}, "session_window": {1}, "from_json": {1, 2}, "to_json": {1},
    "date_format": {1}, "to_timestamp": {1}, "to_date": {1}, "lit": {0}, "expr": {0},
    "get_json_object": {1}, "json_tuple": {1, 2, 3, 4, 5}, "split": {1, 2},
    "regexp_extract": {1, 2}, "regexp_replace": {1, 2}, "substring": {1, 2}, "date_trunc": {0},
    "trunc": {1}, "concat_ws": {0}, "format_string": {0}, "round": {1}, "bround": {1},
    "from_unixtime": {1}, "unix_timestamp": {1}, "approx_count_distinct": {1},
    "percentile_approx": {1, 2}, "date_add": {1}, "date_sub": {1}, "when": {1}, "sha2": {1},
    "element_at": {1}, "from_utc_timestamp": {1}, "to_utc_timestamp": {1}, "locate": {0},
    "instr": {1}, "lpad": {1, 2}, "rpad": {1, 2}, "schema_of_json": {0}, "from_csv": {1, 2},
    "to_csv": {1}, "timestamp_seconds": set(), "make_interval": set(), "parse_json": set(),
}
# Literal arguments that are durations: `window(ts, "10 minutes")` is an Interval.
DURATION_ARGS = {"window": {1, 2, 3}, "session_window": {1}}


def col_of(name: str) -> Col:
    return column(name)


def sql_text(text: str) -> str:
    """Spark SQL in a string, in one canonical spelling (for messages)."""
    expr = parse_simple(str(text))  # an expression: no need to load sqlglot
    if expr is not None:
        return render(expr)
    # Imported here: the SQL dialect loads sqlglot (about 0.1 s), for SQL that is more than
    # an expression only.
    from streamlint.extract.sql.dialect import canonical_sql

    return canonical_sql(str(text))


def opaque_sql(body: str) -> Expr:
    """SQL this reader does not take apart: equal only to the same text."""
    return Call("sql", (Literal(body),))


def col_sql(text: str) -> Col:
    """A column written as a SQL string (`selectExpr`, `expr`, string filters)."""
    return to_col(parse_expression(str(text)))


def sql_call(body: str) -> Col | None:
    """`count(*)`, `sum(amount)` in SQL text read like `F.count("*")`, `F.sum("amount")`;
    None when the text is not one function call."""
    expr = parse_expression(str(body))
    return to_col(expr) if isinstance(expr, Call) else None


def function_col(function: str, args: list[Expr] | tuple[Expr, ...]) -> Col:
    """A function call on columns, in canonical form (`count(1)` is Spark's `count(*)`)."""
    args = list(args)
    for i in DURATION_ARGS.get(function.lower(), ()):
        micros = duration_micros(args[i].value) if i < len(args) and isinstance(
            args[i], Literal) else None
        if micros is not None:  # `window(ts, '5 minutes')` in SQL is the same window
            args[i] = Interval(micros)
    expr = call(function, *args)
    output = "window" if expr.function in ("window", "session_window", "window_time") else None
    return Col(expr, output)


def function_of(name: str, args: list[Any]) -> Col:
    """`pyspark.sql.functions.<name>(*args)`: literal positions as values, durations as
    Intervals, every other argument a column."""
    if name == "lit":
        return Col(literal_expr(args[0]) if args else call("lit"), None)
    if name == "when":
        condition = operand(args[0]) if args else Unresolved("when()")
        value = literal_expr(args[1]) if len(args) > 1 else Literal(None)
        return Col(Case(((condition, value),)), None)
    literal_positions = LITERAL_ARGS.get(name, set())
    durations = DURATION_ARGS.get(name, set())
    parts: list[Expr] = []
    for i, arg in enumerate(args):
        if i in durations and not isinstance(arg, Col):
            micros = duration_micros(arg)
            if micros is not None and origins_of(arg):
                # A deployment's default length: the same window, remembering where from.
                micros = OverridableNumber(micros, origins_of(arg))
            parts.append(Interval(micros) if micros is not None else literal_expr(arg))
        elif i in literal_positions and not isinstance(arg, Col):
            parts.append(literal_expr(arg))
        else:
            parts.append(as_col(arg).expr)
    return function_col(name, parts)


# -- values as expressions ------------------------------------------------------------------


def as_col(value: Any) -> Col:
    """A value where a column is expected: a string names a column."""
    if isinstance(value, Col):
        return value
    if isinstance(value, str):
        return column(value)
    return Col(literal_expr(value), None)


def literal_expr(value: Any) -> Expr:
    """A value where a literal is expected: a string is text, not a column name."""
    if isinstance(value, Col):
        return value.expr
    if isinstance(value, Schema):
        return Literal(value.text)
    value = plain(value)
    if isinstance(value, Unknown):
        return Unresolved(value.text, value.unread, str(value))
    if isinstance(value, Template):
        return Unresolved(str(value), next(
            (p.unread for p in value.parts if isinstance(p, Unknown) and p.unread), ""),
            code_of(value))
    if isinstance(value, tuple):
        return call("array", *(literal_expr(v) for v in value))
    if value is None or isinstance(value, str | int | float | bool):
        return Literal(value)
    return Unresolved(repr(value))


operand = literal_expr  # the other side of `col == "a"` is the text "a"


def literal(value: Any) -> str:
    """A value as text in a message or a label (never compared as structure)."""
    if isinstance(value, Schema):
        return value.text
    if isinstance(value, Unknown | Template):
        return code_of(value)
    return render(literal_expr(value))


def is_unknown(value: Any) -> bool:
    return isinstance(plain(value), Unknown)


_OPS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "Modulo": "%",
    "Equal": "=", "NotEqual": "!=", "LessThan": "<", "GreaterThan": ">",
    "LessThanEqual": "<=", "GreaterThanEqual": ">=", "BitAnd": "and", "BitOr": "or",
    "And": "and", "Or": "or",
}


def col_binary(op: str, left: Any, right: Any) -> Col:
    a, b = operand(left), operand(right)
    if op == "Power":
        return Col(call("pow", a, b), None)
    symbol = _OPS.get(op)
    return Col(Binary(symbol, a, b) if symbol else call(op, a, b), None)


def col_unary(op: str, value: Col) -> Col:
    if op in ("BitInvert", "Not"):
        return Col(Unary("not", value.expr), None)
    if op == "Minus":
        return Col(Unary("-", value.expr), None)
    return value


def col_choice(first: Col, second: Col, condition: str) -> Col | Any:
    """Two columns of one output name and one stated type that a run-time condition chooses
    between (`col(c).cast("string")` if the input has `c`, else `lit(None).cast("string")
    .alias(c)`): a column of that name and type, holding what only the run knows. Branches of
    other types stay a value only the run knows: the column's type is theirs to change."""
    a, b = first.bare, second.bare
    if (first.name is None or first.name != second.name or not isinstance(a, Cast)
            or not isinstance(b, Cast) or a.to != b.to):
        return NEXT
    held = Unresolved(f"{render(a.operand)} if {condition} else {render(b.operand)}")
    return Col(Alias(Cast(held, a.to), first.name), first.name)


_PREDICATES = {"isNull": "isnull", "isNotNull": "isnotnull", "isin": "in", "isNaN": "isnan"}


def col_method(col: Col, name: str, args: list[Any]) -> Any:
    if name in ("alias", "name", "as_"):
        return col.aliased(args[0] if args else None)
    if name in ("cast", "astype"):
        target = args[0] if args else None
        if isinstance(target, Schema):
            type_text = target.text
        elif isinstance(target, str):
            type_text = normalize_type(target)
        else:
            # Not a type name (a DataFrame, a value known only at run time): named by what
            # it is, never by its repr, which for a plan is the whole query.
            known = plain(target)
            type_text = str(known)
            if len(type_text) > 200:
                type_text = type_text[:120] + "..."
        return Col(Cast(col.bare, type_text), col.name)
    if name in ("getField", "getItem"):
        key = args[0] if args else None
        if isinstance(key, str | int) and not isinstance(key, bool):
            return Col(Field(col.bare, key), str(key))
        return Col(call("getitem", col.bare, literal_expr(key)), None)
    if name in ("when", "otherwise") and isinstance(col.bare, Case):
        case = col.bare
        if name == "otherwise":
            return Col(Case(case.branches, literal_expr(args[0]) if args else None), None)
        branch = (operand(args[0]) if args else Unresolved("when()"),
                  literal_expr(args[1]) if len(args) > 1 else Literal(None))
        return Col(Case((*case.branches, branch), case.default), None)
    if name == "eqNullSafe":
        return Col(Binary("<=>", col.bare, operand(args[0] if args else None)), None)
    if name == "between" and len(args) == 2:
        return Col(between(col.bare, operand(args[0]), operand(args[1])), None)
    if name == "isin" and len(args) == 1 and isinstance(args[0], tuple):
        args = list(args[0])  # isin(["a", "b"]) is isin("a", "b")
    function = _PREDICATES.get(name, name)
    return Col(call(function, col.bare, *(operand(a) for a in args)), None)


def aliased(expr: Expr, name: str) -> Expr:
    """`name = expr` as one expression: a plain column under its own name stays itself."""
    operand_ = unaliased(expr)
    if isinstance(operand_, Column) and operand_.name == name:
        return operand_
    return Alias(operand_, name)


# -- values leaving extraction ------------------------------------------------------------


def plain(value: Any) -> Any:
    """A value fit for the model: plain data, or an Unknown naming what it was.

    Symbolic objects (a method, a column, a class of a library) must not leak into the
    records the diff compares; an option set to one is a value streamlint cannot know.
    """
    if value is None or isinstance(value, str | int | float | bool | Unknown | Template):
        return value
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, Schema):
        return value.text
    if isinstance(value, Col):
        return Unknown(render(value.expr))
    if isinstance(value, FunctionRef):
        return Unknown(f"{value.module}.{value.name}")
    if isinstance(value, PathValue):
        return value.text()
    if isinstance(value, BoundMethod):
        owner = plain(value.target)
        owner_text = owner.text if isinstance(owner, Unknown) else str(owner)
        return Unknown(f"{owner_text}.{value.name}",
                       owner.unread if isinstance(owner, Unknown) else "",
                       f"{owner}.{value.name}" if isinstance(owner, Unknown) else "")
    if isinstance(value, Function):
        return Unknown(value.node.name.value)
    if isinstance(value, dict):
        return Unknown("{" + ", ".join(f"{k!r}: {literal(v)}" for k, v in value.items()) + "}")
    return Unknown(f"<{type(value).__name__}>")


def option_value(value: Any) -> Any:
    """An option as Spark stores it: option(k, True) and option(k, "true") are one setting."""
    value = plain(value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    return value


def option_key(key: Any) -> str:
    """An option's name as Spark takes it, a string; anything else (a writer, a column, a
    value known only at run time) is named by what it is, bounded, never by its repr."""
    if isinstance(key, str):
        return key
    known = plain(key)
    text = known.text if isinstance(known, Unknown) else str(known)
    # Compared by what names it (a loop's item names its list by a digest), shown as written.
    shown = (known.shown or known.text) if isinstance(known, Unknown) else str(known)
    return Note(f"<unresolved: {text[:120]}>", shown[:120])


def last_wins(options: Any) -> list[tuple[str, Any]]:
    """Options as Spark keeps them: a case-insensitive map where a later option(k, v) wins.

    `.options(**DEFAULTS).option("startingOffsets", "latest")` must read "latest", whatever
    DEFAULTS said, so an earlier entry for the same key is dropped, not kept beside it.
    """
    merged: dict[str, tuple[str, Any]] = {}
    for key, value in options:
        merged.pop(str(key).lower(), None)
        merged[str(key).lower()] = (str(key), value)
    return list(merged.values())
