"""Spark SQL expressions as the model's typed trees (`streamlint.model.expr`).

`parse_expression("SUM(amount) AS total")` is the tree `F.sum("amount").alias("total")`
lowers to: the canonical forms of the model's docstring are produced here for SQL. Nothing
raises: SQL sqlglot cannot read, or a construct not lowered, is `Unresolved(text)`.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import SqlglotError

from streamlint.extract.sql.canon import duration, function
from streamlint.extract.sql.dialect import StreamingSpark, parse_expr
from streamlint.model.expr import (
    Alias,
    Binary,
    Case,
    Cast,
    Column,
    Expr,
    Field,
    Interval,
    Literal,
    Star,
    Unary,
    Unresolved,
    between,
    call,
)
from streamlint.model.schema_text import normalize_type

_BINARY = {
    exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
    exp.And: "and", exp.Or: "or", exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/",
    exp.Mod: "%", exp.NullSafeEQ: "<=>", exp.BitwiseAnd: "&", exp.BitwiseOr: "|",
    exp.BitwiseXor: "^",
}
_PREDICATES = {exp.Like: "like", exp.ILike: "ilike", exp.RegexpLike: "rlike"}


def parse_expression(text: str) -> Expr:
    """One SQL expression (a select item keeps its alias as `Alias`), read by sqlglot;
    never raises. `parse.parse_expression` tries the reader without sqlglot first."""
    try:
        return lower(parse_expr(text))
    except (SqlglotError, RecursionError, AttributeError, TypeError, ValueError, KeyError,
            IndexError):
        return Unresolved(" ".join(text.split()))


def lower(node: exp.Expr) -> Expr:
    """A parsed sqlglot expression as a model expression."""
    # In this order: sqlglot's classes inherit from each other, so the first kind that
    # matches decides (an `If` is a `Func`, a `TryCast` a `Cast`).
    for kind in (_lower_operand, _lower_operation, _lower_structure):
        expr = kind(node)
        if expr is not None:
            return expr
    return _unresolved(node)


def _lower_operand(node: exp.Expr) -> Expr | None:
    """Names, literals, aliases, casts; None for another kind of node."""
    if isinstance(node, exp.Paren):
        return lower(node.this)
    if isinstance(node, exp.Alias):
        return Alias(lower(node.this), node.alias)
    if isinstance(node, exp.Column):
        return _column(node)
    if isinstance(node, exp.Star):
        return Star()
    if isinstance(node, exp.Literal):
        return Literal(node.this if node.is_string else _number(node.this))
    if isinstance(node, exp.Boolean):
        return Literal(bool(node.this))
    if isinstance(node, exp.Null):
        return Literal(None)
    if isinstance(node, exp.Interval):
        micros = _interval(node)
        return Interval(micros) if micros is not None else _unresolved(node)
    if isinstance(node, exp.Cast | exp.TryCast):
        return Cast(lower(node.this), normalize_type(node.to.sql(dialect=StreamingSpark)))
    if isinstance(node, exp.Collate):  # `k COLLATE UTF8_LCASE` is collate(k, 'UTF8_LCASE')
        return call("collate", lower(node.this), Literal(node.expression.name))
    return None


def _lower_operation(node: exp.Expr) -> Expr | None:
    """Unary and binary operators and predicates; None for another kind of node."""
    if isinstance(node, exp.Not):
        inner = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return call("isnotnull", lower(inner.this))
        return Unary("not", lower(node.this))
    if isinstance(node, exp.Neg):
        operand = lower(node.this)
        if isinstance(operand, Literal) and isinstance(operand.value, int | float):
            return Literal(-operand.value)
        return Unary("-", operand)
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return call("isnotnull" if node.args.get("negate") else "isnull", lower(node.this))
    if type(node) in _BINARY:
        left, right = lower(node.this), lower(node.expression)
        if isinstance(node, exp.Add) and isinstance(left, Interval) and isinstance(
                right, Interval):  # INTERVAL 1 HOUR 30 MINUTES
            return Interval(left.micros + right.micros)
        return Binary(_BINARY[type(node)], left, right)
    if isinstance(node, exp.DPipe):
        return call("concat", lower(node.this), lower(node.expression))
    if type(node) in _PREDICATES:
        predicate = call(_PREDICATES[type(node)], lower(node.this), lower(node.expression))
        return Unary("not", predicate) if node.args.get("negate") else predicate
    if isinstance(node, exp.In) and not node.args.get("query"):
        return call("in", lower(node.this), *(lower(e) for e in node.expressions))
    if isinstance(node, exp.Between):
        return between(lower(node.this), lower(node.args["low"]), lower(node.args["high"]))
    return None


def _lower_structure(node: exp.Expr) -> Expr | None:
    """Conditionals, field and element access, sort order, function calls; None for
    another kind of node."""
    if isinstance(node, exp.Case) and node.this is None:
        branches = tuple((lower(i.this), lower(i.args["true"])) for i in node.args["ifs"])
        default = node.args.get("default")
        return Case(branches, lower(default) if default is not None else None)
    if isinstance(node, exp.If):
        false = node.args.get("false")
        return Case(((lower(node.this), lower(node.args["true"])),),
                    lower(false) if false is not None else None)
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
        key = lower(node.expressions[0])
        if isinstance(key, Literal) and isinstance(key.value, str | int) and not isinstance(
                key.value, bool):
            return Field(lower(node.this), key.value)
        return call("element_at", lower(node.this), key)
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        return Field(lower(node.this), node.expression.name)
    if isinstance(node, exp.Ordered):
        return call("desc" if node.args.get("desc") else "asc", lower(node.this))
    if isinstance(node, exp.Anonymous):
        return _function(str(node.this), node.expressions)
    if isinstance(node, exp.Func) and not isinstance(node, exp.Window | exp.Filter):
        return _generic_function(node)
    return None


def _column(node: exp.Column) -> Expr:
    if isinstance(node.this, exp.Star):
        return Star(node.table or None)
    parts = [p.name for p in node.parts]
    if len(parts) <= 2:
        return Column(parts[-1], parts[0] if len(parts) == 2 else None)
    # `a.b.c`: a qualified column's struct field (Spark resolves it the same way).
    expr: Expr = Column(parts[1], parts[0])
    for part in parts[2:]:
        expr = Field(expr, part)
    return expr


def _function(name: str, args: list[exp.Expr]) -> Expr:
    distinct = False
    if len(args) == 1 and isinstance(args[0], exp.Distinct):
        distinct, args = True, list(args[0].expressions)
    return function(name, [lower(a) for a in args], distinct)


def _generic_function(node: exp.Func) -> Expr:
    """A function sqlglot parses into its own class even so (SUBSTRING, IF, ...): the name
    Spark's generator writes, the arguments in sqlglot's order."""
    text = node.sql(dialect=StreamingSpark)
    name = text.split("(", 1)[0].strip()
    if not name.replace("_", "").isalnum():
        return _unresolved(node)
    args: list[exp.Expr] = []
    for key in node.arg_types:
        value = node.args.get(key)
        if isinstance(value, list):
            args.extend(v for v in value if isinstance(v, exp.Expr))
        elif isinstance(value, exp.Expr):
            args.append(value)
    return _function(name, args)


def _interval(node: exp.Interval) -> int | None:
    amount = node.this.name if isinstance(node.this, exp.Expr) else str(node.this or "")
    unit = node.args.get("unit")
    return duration(f"{amount} {unit.name if unit is not None else ''}")


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return 0


def _unresolved(node: exp.Expr) -> Unresolved:
    try:
        return Unresolved(node.sql(dialect=StreamingSpark))
    except SqlglotError:
        return Unresolved(type(node).__name__)

