"""Column expressions in canonical text: the one spelling every way of writing a column gets.

`F.col("x")`, `col("x")`, `"x"`, `df.x`, `df["x"]` and `expr("x")` all become `col(x)`;
operators, methods and SQL strings build on that, so two versions compare by meaning, not
by how they were typed. `plain` turns what is left into model values (plain data or
`Unknown`), so no symbolic object reaches the records the diff compares.
"""

from __future__ import annotations

from typing import Any

from streamlint.extract.schema_text import normalize_type
from streamlint.extract.values import BoundMethod, Col, Function, FunctionRef, Schema, column
from streamlint.model import UNRESOLVED_MARK, Unknown
from streamlint.records import replace

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


def sql_text(text: str) -> str:
    """Spark SQL in a string, in one canonical spelling (for messages)."""
    from streamlint.extract.sql.simple import parse_simple
    from streamlint.model.expr import render

    expr = parse_simple(str(text))  # an expression: no need to load sqlglot
    if expr is not None:
        return render(expr)
    from streamlint.extract.sql.statements import canonical_sql

    return canonical_sql(str(text))


def col_of(name: str) -> Col:
    return column(name)


def col_sql(text: str) -> Col:
    """A column written as a SQL string (`selectExpr`, `expr`, string filters)."""
    from streamlint.extract.sql.bridge import to_col
    from streamlint.extract.sql.parse import parse_expression

    return to_col(parse_expression(str(text)))


def sql_call(body: str) -> Col | None:
    """`count(*)`, `sum(amount)` in SQL text read like `F.count("*")`, `F.sum("amount")`;
    None when the text is not one function call."""
    from streamlint.extract.sql.bridge import to_col
    from streamlint.extract.sql.parse import parse_expression
    from streamlint.model.expr import Call

    expr = parse_expression(str(body))
    return to_col(expr) if isinstance(expr, Call) else None


def function_col(function: str, parts: list[str], refs: set[str]) -> Col:
    """A function call on columns; `count(1)` and `count(lit(1))` are Spark's `count(*)`."""
    if function == "count" and parts in (["1"], ["lit(1)"]):
        parts = ["*"]
    output = "window" if function in ("window", "session_window", "window_time") else None
    return Col(f"{function}({', '.join(parts)})", output, function=function, args=tuple(parts),
               refs=frozenset(refs))


def as_col(value: Any) -> Col:
    if isinstance(value, Col):
        return value
    if isinstance(value, str):
        return column(value)
    value = plain(value)
    if isinstance(value, Unknown):
        return Col(unknown_text(value), None)
    return Col(repr(value), None)


def unknown_text(value: Unknown) -> str:
    """An unresolved value inside an expression's text, marked so the diff can tell."""
    return f"{UNRESOLVED_MARK}{value.text}\u27e9"


def literal(value: Any) -> str:
    if isinstance(value, Col):
        return value.text
    if isinstance(value, Schema):
        return value.text
    value = plain(value)
    if isinstance(value, Unknown):
        return unknown_text(value)
    return repr(value)


_OPS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "Modulo": "%",
    "FloorDivide": "//", "Power": "**", "Equal": "==", "NotEqual": "!=", "LessThan": "<",
    "GreaterThan": ">", "LessThanEqual": "<=", "GreaterThanEqual": ">=", "BitAnd": "&",
    "BitOr": "|", "And": "&", "Or": "|", "In": "in", "NotIn": "not in",
}


def col_binary(op: str, left: Any, right: Any) -> Col:
    refs = frozenset().union(*(v.refs for v in (left, right) if isinstance(v, Col)))
    return Col(f"({literal(left)} {_OPS.get(op, op)} {literal(right)})", None, refs=refs)


def col_unary(op: str, value: Col) -> Col:
    symbol = {"BitInvert": "~", "Not": "~", "Minus": "-"}.get(op, op)
    return Col(f"{symbol}{value.text}", None, refs=value.refs)


def col_method(col: Col, name: str, args: list[Any]) -> Any:
    if name in ("alias", "name", "as_"):
        return col.aliased(args[0] if args else None)
    if name in ("cast", "astype"):
        target = args[0] if args else None
        type_text = target.text if isinstance(target, Schema) else normalize_type(str(target))
        return replace(col, text=f"cast({col.text} AS {type_text})", function="cast",
                       args=(col.text, type_text))
    if name in ("getField", "getItem"):
        key = args[0] if args else None
        return Col(f"{col.text}[{key!r}]", str(key), refs=col.refs)
    if name == "over":
        return replace(col, text=f"{col.text} OVER ({literal(args[0]) if args else ''})")
    refs = frozenset().union(col.refs, *(a.refs for a in args if isinstance(a, Col)))
    rendered = ", ".join(literal(a) for a in args)
    return Col(f"{col.text}.{name}({rendered})", None, function=col.function, args=col.args,
               refs=refs)


# -- values leaving extraction ------------------------------------------------------------


def plain(value: Any) -> Any:
    """A value fit for the model: plain data, or an Unknown naming what it was.

    Symbolic objects (a method, a column, a class of a library) must not leak into the
    records the diff compares; an option set to one is a value streamlint cannot know.
    """
    if value is None or isinstance(value, str | int | float | bool | Unknown):
        return value
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, Schema):
        return value.text
    if isinstance(value, Col):
        return Unknown(value.text)
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
