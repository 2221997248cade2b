"""A reader for the simple SQL expressions most jobs write, without importing sqlglot.

`expr("amount * 1.0")`, `selectExpr("k", "count(*) AS n")`, `where("a = b AND c IS NOT
NULL")`: columns, literals, intervals, calls, casts to a plain type, arithmetic, comparisons,
IS NULL, IN, BETWEEN, LIKE, AND/OR/NOT, an alias. Loading sqlglot costs more than reading a
whole job, so a job whose SQL is only such strings never loads it. Anything else returns
None and sqlglot reads it; both readers give the same tree (tests/test_sql.py checks).
"""

from __future__ import annotations

import re

from streamlint.extract.sql.canon import duration, function
from streamlint.model.expr import (
    Alias,
    Binary,
    Call,
    Cast,
    Column,
    Expr,
    Field,
    Interval,
    Literal,
    Star,
    Unary,
    between,
    call,
)
from streamlint.model.schema_text import normalize_type

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?(?![\w.]))|(?P<str>'(?:[^'\\]|\\.)*')"
                    r"|(?P<quoted>`[^`]+`)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op><=>|<>|!=|>=|<=|==|[=<>+\-*/%(),.]))")
_KEYWORDS = {"and", "or", "not", "is", "null", "true", "false", "in", "between", "like",
             "rlike", "as", "interval", "distinct", "cast", "case", "when", "then", "else",
             "end", "select", "from", "where", "over", "filter", "ilike", "div", "escape",
             "within", "ignore", "respect", "nulls", "lateral", "exists", "any", "some", "all"}
# Functions sqlglot parses with a syntax of their own (its FUNCTION_PARSERS): left to it.
_SPECIAL = {"and", "approx_percentile", "argmax", "argmin", "arg_max", "arg_min", "broadcast",
            "cast", "ceil", "char", "chr", "convert", "decode", "extract", "floor", "gap_fill",
            "initcap", "json_object", "json_objectagg", "json_table", "listagg", "match",
            "max_by", "merge", "min_by", "normalize", "openjson", "or", "overlay",
            "percentile", "percentile_approx", "position", "safe_cast", "string_agg",
            "substr", "substring", "trim", "try_cast", "try_convert", "weight_string",
            "xmlelement", "xmltable", "any", "case", "if", "transform", "connect_by_root",
            "mapjoin", "broadcastjoin", "mergejoin",
            "shufflemerge", "shuffle_hash", "shuffle_replicate_nl"}
# Read as calls without parentheses (`current_timestamp`), not as columns.
_NO_PAREN = {"current_date", "current_timestamp", "current_user", "session_user",
             "current_datetime", "current_role"}
_TYPES = {"int", "integer", "bigint", "long", "smallint", "tinyint", "string", "double",
          "float", "boolean", "date", "timestamp", "decimal", "binary"}
_EQUALITY = {"=": "=", "==": "=", "!=": "!=", "<>": "!=", "<=>": "<=>"}
_COMPARISON = {"<", "<=", ">", ">="}


class _Unsupported(Exception):
    pass


def parse_simple(text: str) -> Expr | None:
    """The expression (a select item keeps its alias), or None to let sqlglot read it."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    reader = _Reader(tokens)
    try:
        expr = reader.select_item()
    except (_Unsupported, IndexError, RecursionError):
        return None
    return expr if reader.at_end() else None


def _tokens(text: str) -> list[tuple[str, str]] | None:
    tokens, at, end = [], 0, len(text.rstrip())
    while at < end:
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            return None
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        at = match.end()
    return tokens


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0
        self.from_is_null: set[int] = set()  # `x IS NULL` (NOT of it is isnotnull)

    def at_end(self) -> bool:
        return self.at == len(self.tokens)

    def peek(self, offset: int = 0) -> tuple[str, str]:
        index = self.at + offset
        return self.tokens[index] if index < len(self.tokens) else ("", "")

    def word(self, offset: int = 0) -> str:
        kind, value = self.peek(offset)
        return value.lower() if kind == "name" else ""

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if not token[0]:
            raise _Unsupported
        self.at += 1
        return token

    def expect(self, value: str) -> None:
        kind, got = self.take()
        if got.lower() != value:
            raise _Unsupported

    def select_item(self) -> Expr:
        expr = self.disjunction()
        if self.word() == "as":
            self.take()
            return Alias(expr, self.identifier())
        kind, value = self.peek()
        if kind == "quoted" or (kind == "name" and value.lower() not in _KEYWORDS):
            return Alias(expr, self.identifier())
        return expr

    def identifier(self) -> str:
        kind, value = self.take()
        if kind == "quoted":
            return value[1:-1]
        if kind != "name" or value.lower() in _KEYWORDS:
            raise _Unsupported
        return value

    def disjunction(self) -> Expr:
        expr = self.conjunction()
        while self.word() == "or":
            self.take()
            expr = Binary("or", expr, self.conjunction())
        return expr

    def conjunction(self) -> Expr:
        expr = self.negation()
        while self.word() == "and":
            self.take()
            expr = Binary("and", expr, self.negation())
        return expr

    def negation(self) -> Expr:
        if self.word() != "not":
            return self.equality()
        self.take()
        operand = self.negation()
        if id(operand) in self.from_is_null:
            return call("isnotnull", *operand.args)  # type: ignore[union-attr]
        return Unary("not", operand)

    def equality(self) -> Expr:
        expr = self.comparison()
        while self.peek()[1] in _EQUALITY and self.peek()[0] == "op":
            op = _EQUALITY[self.take()[1]]
            expr = Binary(op, expr, self.comparison())
        return expr

    def comparison(self) -> Expr:
        expr = self.range()
        while self.peek()[0] == "op" and self.peek()[1] in _COMPARISON:
            op = self.take()[1]
            expr = Binary(op, expr, self.range())
        return expr

    def range(self) -> Expr:  # noqa: C901 - IS, IN, BETWEEN, LIKE, each maybe negated
        expr = self.term()
        negated = self.word() == "not" and self.word(1) in ("in", "between", "like", "rlike")
        if negated:
            self.take()
        word = self.word()
        if word == "is":
            self.take()
            if self.word() == "not":
                self.take()
                self.expect("null")
                return call("isnotnull", expr)
            self.expect("null")
            result = call("isnull", expr)
            self.from_is_null.add(id(result))
            return result
        if word == "in":
            self.take()
            self.expect("(")
            items = [self.disjunction()]
            while self.peek()[1] == ",":
                self.take()
                items.append(self.disjunction())
            self.expect(")")
            result: Expr = call("in", expr, *items)
        elif word == "between":
            self.take()
            low = self.term()
            self.expect("and")
            result = between(expr, low, self.term())
        elif word in ("like", "rlike"):
            self.take()
            result = call(word, expr, self.term())
        else:
            return expr
        return Unary("not", result) if negated else result

    def term(self) -> Expr:
        expr = self.factor()
        while self.peek()[0] == "op" and self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            right = self.factor()
            if op == "+" and isinstance(expr, Interval) and isinstance(right, Interval):
                expr = Interval(expr.micros + right.micros)
            else:
                expr = Binary(op, expr, right)
        return expr

    def factor(self) -> Expr:
        expr = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/", "%"):
            op = self.take()[1]
            expr = Binary(op, expr, self.unary())
        return expr

    def unary(self) -> Expr:
        if self.peek() == ("op", "-"):
            self.take()
            operand = self.unary()
            if isinstance(operand, Literal) and isinstance(operand.value, int | float) and (
                    not isinstance(operand.value, bool)):
                return Literal(-operand.value)
            return Unary("-", operand)
        return self.primary()

    def primary(self) -> Expr:  # noqa: C901 - one branch per token kind
        kind, value = self.take()
        if kind == "num":
            return Literal(float(value) if "." in value else int(value))
        if kind == "str":
            if "\\" in value:
                raise _Unsupported  # escapes: sqlglot's rules
            return Literal(value[1:-1])
        if kind == "op":
            if value == "(":
                expr = self.disjunction()
                self.expect(")")
                return expr
            if value == "*":
                return Star()
            raise _Unsupported
        name = value[1:-1] if kind == "quoted" else value
        lowered = name.lower() if kind == "name" else ""
        if lowered in ("true", "false"):
            return Literal(lowered == "true")
        if lowered == "null":
            return Literal(None)
        if lowered == "interval":
            return self.interval()
        if lowered == "cast" and self.peek()[1] == "(":
            return self.cast()
        if lowered in _KEYWORDS:
            raise _Unsupported
        if self.peek()[1] == "(" and kind == "name":
            return self.function(name)
        return self.column(name)

    def interval(self) -> Interval:
        parts = []
        while self.peek()[0] in ("num", "str") and (
                self.peek()[0] == "str" or self.peek(1)[0] == "name"):
            amount = self.take()[1].strip("'")
            unit = self.take()[1] if self.peek()[0] == "name" and self.word() not in (
                "and", "or", "as", "not", "is", "in", "between", "like", "rlike") else ""
            parts.append(f"{amount} {unit}")
        micros = duration(" ".join(parts)) if parts else None
        if micros is None:
            raise _Unsupported
        return Interval(micros)

    def cast(self) -> Cast:
        self.expect("(")
        operand = self.disjunction()
        self.expect("as")
        base = self.identifier().lower()
        if base not in _TYPES:
            raise _Unsupported
        text = base
        if self.peek()[1] == "(":
            self.take()
            sizes = [self.take()[1]]
            while self.peek()[1] == ",":
                self.take()
                sizes.append(self.take()[1])
            self.expect(")")
            if not all(s.isdigit() for s in sizes):
                raise _Unsupported
            text = f"{base}({','.join(sizes)})"
        self.expect(")")
        return Cast(operand, normalize_type(text))

    def function(self, name: str) -> Call:
        if name.lower() in _SPECIAL:
            raise _Unsupported
        self.expect("(")
        distinct = self.word() == "distinct"
        if distinct:
            self.take()
        args: list[Expr] = []
        if self.peek()[1] != ")":
            args.append(self.disjunction())
            while self.peek()[1] == ",":
                self.take()
                args.append(self.disjunction())
        self.expect(")")
        return function(name, args, distinct)

    def column(self, name: str) -> Expr:
        parts = [name]
        while self.peek() == ("op", "."):
            self.take()
            if self.peek() == ("op", "*"):
                self.take()
                if len(parts) != 1:
                    raise _Unsupported
                return Star(parts[0])
            parts.append(self.identifier())
        if name.lower() in _NO_PAREN:
            raise _Unsupported
        if len(parts) == 1:
            return Column(name)
        expr: Expr = Column(parts[1], parts[0])
        for part in parts[2:]:
            expr = Field(expr, part)
        return expr
