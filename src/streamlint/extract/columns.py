"""Column expressions as trees (`streamlint.model.expr`): one shape however a column is written.

`F.col("x")`, `col("x")`, `"x"`, `df.x`, `df["x"]` and `expr("x")` are all `Column("x")`;
operators, methods and SQL strings build on that, so two versions compare by meaning, not by
how they were typed. `plain` turns what is left into model values (plain data or `Unknown`),
so no symbolic object reaches the records the diff compares.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from streamlint.extract.schema_text import normalize_type, split_top_level
from streamlint.extract.values import BoundMethod, Col, Function, FunctionRef, Schema, column
from streamlint.model import Template, Unknown
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
    call,
    render,
    unaliased,
)

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


# -- SQL strings (read by regular expressions until the SQL front end replaces these) ---------

_ALIAS_RE = re.compile(r"^(.*?\S)\s+(?:AS\s+)?`?([A-Za-z_][A-Za-z0-9_]*)`?$", re.DOTALL)
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_SQL_CALL_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)", re.DOTALL)
_SQL_LITERAL_RE = re.compile(r"-?\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\"")
_SQL_WORDS = {"AND", "OR", "NOT", "NULL", "END", "ASC", "DESC", "TRUE", "FALSE"}
_SQL_AND_RE = re.compile(r"\s+AND\s+")
_SQL_COMPARE_RE = re.compile(r"^(.+?)\s*(<=>|<=|>=|!=|<>|==|=|<|>)\s*(.+)$", re.DOTALL)
_SQL_INTERVAL_RE = re.compile(r"^(.+?)\s*([+-])\s*INTERVAL\s+(.+)$", re.IGNORECASE | re.DOTALL)


def sql_text(text: str) -> str:
    """Spark SQL in a string, with spacing and keyword case made canonical."""
    text = " ".join(str(text).split())
    return re.sub(r"\b(and|or|not|as|is|null|in|like|between|case|when|then|else|end)\b",
                  lambda m: m.group(1).upper(), text, flags=re.IGNORECASE)


def opaque_sql(body: str) -> Expr:
    """SQL this reader does not take apart: equal only to the same text."""
    return Call("sql", (Literal(body),))


def col_sql(text: str) -> Col:
    """A column written as a SQL string (`selectExpr`, `expr`, string filters)."""
    body = sql_text(text)
    name: str | None = None
    match = _ALIAS_RE.match(body)
    if match and match.group(2).upper() not in _SQL_WORDS and (
            " AS " in f" {body} " or match.group(1).endswith(")")
            or _IDENT_RE.fullmatch(match.group(1))):
        body, name = match.group(1).strip(), match.group(2)
    if body == "*":  # selectExpr("*") keeps every input column, like select("*")
        return column("*")
    if _IDENT_RE.fullmatch(body) or (body.endswith(".*") and _IDENT_RE.fullmatch(body[:-2])):
        col = column(body)
        return col.aliased(name) if name else col
    called = sql_call(body)
    if called is not None:
        return called.aliased(name) if name else called
    condition = _sql_condition(body)
    return Col(condition, None).aliased(name) if name else Col(condition, None)


def _sql_condition(body: str) -> Expr:
    """`a = b AND t >= s + INTERVAL 5 seconds`: conjuncts of simple comparisons, each side a
    column, literal, call or `column ± INTERVAL`; anything else is opaque."""
    if " OR " in f" {body} " or "(" in body and not _balanced_calls(body):
        return opaque_sql(body)
    parts: list[str] = []
    for piece in _SQL_AND_RE.split(body):
        if parts and " BETWEEN " in f" {parts[-1]} " and " AND " not in f" {parts[-1]} ":
            parts[-1] = f"{parts[-1]} AND {piece}"  # BETWEEN's own AND
        else:
            parts.append(piece)
    if len(parts) == 1:
        return _sql_comparison(parts[0]) or opaque_sql(body)
    terms = [_sql_comparison(p) or opaque_sql(p) for p in parts]
    result = terms[0]
    for term in terms[1:]:
        result = Binary("and", result, term)
    return result


def _balanced_calls(body: str) -> bool:
    depth = 0
    for ch in body:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _sql_comparison(text: str) -> Expr | None:
    text = text.strip()
    between = re.fullmatch(r"(.+?)\s+BETWEEN\s+(.+?)\s+AND\s+(.+)", text, re.DOTALL)
    if between:
        sides = [_sql_operand(s) for s in between.groups()]
        return call("between", *sides) if all(s is not None for s in sides) else None  # type: ignore[arg-type]
    match = _SQL_COMPARE_RE.match(text)
    if match is None:
        return _sql_operand(text)
    left, right = _sql_operand(match.group(1)), _sql_operand(match.group(3))
    if left is None or right is None:
        return None
    op = {"==": "=", "<>": "!="}.get(match.group(2), match.group(2))
    return Binary(op, left, right)


def _sql_operand(text: str) -> Expr | None:
    text = text.strip()
    shifted = _SQL_INTERVAL_RE.fullmatch(text)
    if shifted:
        base, micros = _sql_operand(shifted.group(1)), duration_micros(shifted.group(3))
        if base is None or micros is None:
            return None
        return Binary(shifted.group(2), base, Interval(micros))
    if _IDENT_RE.fullmatch(text) and text.upper() not in _SQL_WORDS:
        return column(text).expr
    if _SQL_LITERAL_RE.fullmatch(text):
        return Literal(ast.literal_eval(text))
    called = sql_call(text)
    return called.expr if called is not None else None


def sql_call(body: str) -> Col | None:
    """`count(*)`, `sum(amount)` in SQL text read like `F.count("*")`, `F.sum("amount")`.

    Only a call whose arguments are all column names, `*` or literals is read; anything
    richer stays opaque, which is never equal to a different spelling, only to itself.
    """
    match = _SQL_CALL_RE.fullmatch(body)
    if match is None:
        return None
    inner = match.group(2).strip()
    if not _balanced_calls(inner):  # `max(a) - min(b)` is not one call: its "arguments" close early
        return None
    args: list[Expr] = []
    for arg in split_top_level(inner) if inner else []:
        if arg == "*":
            args.append(column("*").expr)
        elif _IDENT_RE.fullmatch(arg) and arg.upper() not in _SQL_WORDS:
            args.append(column(arg).expr)
        elif _SQL_LITERAL_RE.fullmatch(arg):
            args.append(Literal(ast.literal_eval(arg)))
        else:
            return None
    return function_col(match.group(1), args)  # SQL names ignore case


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
        return Unresolved(value.text)
    if isinstance(value, Template):
        return Unresolved(str(value))
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
    if isinstance(value, Unknown):
        return value.text
    if isinstance(value, Template):
        return str(value)
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


_PREDICATES = {"isNull": "isnull", "isNotNull": "isnotnull", "isin": "in", "isNaN": "isnan"}


def col_method(col: Col, name: str, args: list[Any]) -> Any:
    if name in ("alias", "name", "as_"):
        return col.aliased(args[0] if args else None)
    if name in ("cast", "astype"):
        target = args[0] if args else None
        type_text = target.text if isinstance(target, Schema) else normalize_type(str(target))
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
    if isinstance(value, BoundMethod):
        owner = plain(value.target)
        owner_text = owner.text if isinstance(owner, Unknown) else str(owner)
        return Unknown(f"{owner_text}.{value.name}")
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
