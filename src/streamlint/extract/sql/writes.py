"""What a SQL statement run in a foreachBatch function writes: `sql_write` reads MERGE INTO,
INSERT INTO / OVERWRITE, UPDATE, DELETE and CREATE ... AS into a `BatchWrite` (its target,
mode, condition and column lists), with the query that feeds an INSERT as its `data` (without
its WHERE clauses and hints). sqlglot is loaded only when a statement is read.

The text comes from Python: an f-string's `{expr}` is a `Hole` here, parsed as a placeholder
identifier and shown again as `{expr}`.
"""

from __future__ import annotations

import re
from typing import Any

from streamlint.model import BatchWrite, WrittenStep


class Hole(str):
    """The code of a value put into SQL text at run time (an f-string's `{expr}`)."""


_WRITE_WORDS = re.compile(r"\b(merge|insert|update|delete|create|replace|truncate|drop|alter)\b",
                          re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)


# Commands that change no rows of a table: maintenance, caching, session settings.
_NO_DATA = frozenset({"OPTIMIZE", "VACUUM", "ANALYZE", "REFRESH", "CACHE", "UNCACHE", "MSCK",
                      "SHOW", "DESCRIBE", "DESC", "SET", "USE", "EXPLAIN"})


def _placeholder(i: int) -> str:
    return f"streamlint_hole_{i}_"


def sql_write(parts: list[str]) -> BatchWrite | None:
    """The write the statement made of `parts` (text and `Hole`s) makes; None for one that
    writes nothing (a SELECT, a temp view), a `sql` write with the text when it cannot be read
    but may write."""
    holes = [p for p in parts if isinstance(p, Hole)]
    text = "".join(_placeholder(holes.index(p)) if isinstance(p, Hole) else p for p in parts)

    def shown(sql: str) -> str:
        for i, hole in enumerate(holes):
            sql = sql.replace(_placeholder(i), "{" + hole + "}")
        return sql

    statement = _parse(text)
    if statement is None:
        bare = _COMMENT.sub(" ", text)
        if not _WRITE_WORDS.search(bare):
            return None
        return BatchWrite("sql", None, None, None, (shown(_SPACE.sub(" ", bare).strip()),))
    return _read(statement, shown)


def _parse(text: str) -> Any:
    from sqlglot.errors import SqlglotError

    from streamlint.extract.sql.dialect import parse_statements

    try:
        statements = [s for s in parse_statements(text) if s is not None]
    except (SqlglotError, RecursionError, ValueError):
        return None
    return statements[0] if len(statements) == 1 else None


def _read(statement: Any, shown: Any) -> BatchWrite | None:  # noqa: C901 - one case a statement
    from sqlglot import exp

    def sql(node: Any) -> str | None:
        return shown(node.sql(dialect="databricks")) if node is not None else None

    def table(node: Any) -> str | None:
        if isinstance(node, exp.Schema):
            node = node.this
        if isinstance(node, exp.Table):
            node = node.copy()
            node.set("alias", None)
            node.set("partition", None)
        return sql(node)

    if isinstance(statement, exp.Merge):
        return _merge(statement, sql, table)
    if isinstance(statement, exp.Insert):
        return _insert(statement, sql, table)
    if isinstance(statement, exp.Update):
        where = statement.args.get("where")
        return BatchWrite("update", table(statement.this), None,
                          sql(where.this) if where is not None else None,
                          tuple(sorted(sql(e.this) or "" for e in statement.expressions)))
    if isinstance(statement, exp.Delete):
        where = statement.args.get("where")
        return BatchWrite("delete", table(statement.this), None,
                          sql(where.this) if where is not None else None)
    if isinstance(statement, exp.Create):
        if str(statement.args.get("kind") or "").upper() not in ("TABLE", ""):
            return None  # a view, temporary or not, writes no data
        mode = "replace" if statement.args.get("replace") else (
            "if not exists" if statement.args.get("exists") else None)
        return BatchWrite("create", table(statement.this), mode, None)
    if isinstance(statement, exp.Query | exp.Use | exp.Set | exp.Cache):
        return None
    if isinstance(statement, exp.Command) and str(statement.this).upper() in _NO_DATA:
        return None
    if isinstance(statement, exp.Command | exp.Drop | exp.Alter | exp.TruncateTable):
        return BatchWrite("sql", None, None, None, (sql(statement) or "",))
    return None


def _merge(statement: Any, sql: Any, table: Any) -> BatchWrite:
    clauses = []
    whens = statement.args.get("whens")
    for when in (whens.expressions if whens is not None else []):
        head = "WHEN MATCHED" if when.args.get("matched") else "WHEN NOT MATCHED"
        if when.args.get("source"):
            head += " BY SOURCE"
        if when.args.get("condition") is not None:
            head += f" AND {sql(when.args['condition'])}"
        clauses.append(f"{head} THEN {_action(when.args.get('then'), sql)}")
    return BatchWrite("merge", table(statement.this), None, sql(statement.args.get("on")),
                      tuple(clauses))


def _insert(statement: Any, sql: Any, table: Any) -> BatchWrite:
    from sqlglot import exp

    mode = "overwrite" if statement.args.get("overwrite") else "append"
    using = statement.args.get("using")
    if using:
        mode = f"replace using ({', '.join(sql(u) or '' for u in using)})"
    elif statement.args.get("where") is not None:
        mode = f"replace where {sql(statement.args['where'])}"
    target = statement.this
    columns = tuple(sql(c) or "" for c in target.expressions) if isinstance(
        target, exp.Schema) else ()
    partition = target.args.get("partition") if isinstance(target, exp.Table) else None
    if partition is not None:
        columns = (*columns, sql(partition) or "")
    kind = "insert overwrite" if statement.args.get("overwrite") else "insert"
    return BatchWrite(kind, table(target), mode, None, columns,
                      _query(statement.expression, sql))


def _query(query: Any, sql: Any) -> tuple[WrittenStep, ...]:
    """The query that feeds a write, as its text without its WHERE clauses, hints and
    comments: rows kept by a predicate and the plan's hints do not change what is written
    (as a stream's own filter does not), its joins, groups and columns do."""
    from sqlglot import exp

    if query is None:
        return ()
    query = query.copy()
    for select in query.find_all(exp.Select):
        select.set("where", None)
        select.set("hint", None)
    for node in query.walk():
        node.comments = None
    return (WrittenStep("query", "sql", (sql(query) or "",)),)


def _action(then: Any, sql: Any) -> str:
    from sqlglot import exp

    if isinstance(then, exp.Update):
        names = [sql(e.this) if isinstance(e, exp.EQ) else sql(e) for e in then.expressions]
        return f"UPDATE SET {', '.join(names)}"
    if isinstance(then, exp.Insert):
        columns = then.this
        names = ([sql(c) for c in columns.expressions] if isinstance(columns, exp.Tuple)
                 else [sql(columns)] if columns is not None else ["*"])
        return f"INSERT ({', '.join(n or '' for n in names)})"
    return sql(then) or "?"
