"""`%sql` notebook cells: a cell is `spark.sql(cell)`, run where the cell is.

A cell made only of statements the SQL front end lowers (queries, `CREATE TEMP VIEW ... AS`,
`SET key = value`, inspection) becomes one Python line in the notebook's source, so the
views it makes feed the Python cells after it. Any other cell (INSERT, MERGE, `CREATE
STREAMING TABLE`, SQL sqlglot cannot read) is not replaced and stays reported as SQL
streamlint does not read.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import SqlglotError

from streamlint.extract.sql.dialect import parse_statements
from streamlint.extract.sql.statements import INERT, settings


def python_call(text: str) -> str | None:
    """The Python line standing for the cell, or None when the cell is not lowered."""
    try:
        statements = [s for s in parse_statements(text) if s is not None]
    except (SqlglotError, RecursionError):
        return None
    if not statements or not all(_lowered(s) for s in statements):
        return None
    return f"spark.sql({text!r})"


def _lowered(statement: exp.Expr) -> bool:
    if isinstance(statement, (exp.Query, *INERT)) or settings(statement) is not None:
        return True
    return (isinstance(statement, exp.Create)
            and str(statement.args.get("kind")).upper() == "VIEW"
            and isinstance(statement.expression, exp.Query))


# What a plain CREATE TABLE may say besides its columns: where and how the table is stored.
_PLAIN_CREATE = {"kind", "this", "properties", "replace", "exists"}


def plain_ddl(text: str) -> bool:
    """Only `CREATE [OR REPLACE] TABLE t (col TYPE, ...) [USING ...] [LOCATION ...]`: a table
    made from its declared columns, with no query. Such a cell starts no streaming query and
    reads nothing the job computes, so written the same in both versions it is the same."""
    try:
        statements = [s for s in parse_statements(text) if s is not None]
    except (SqlglotError, RecursionError):
        return False
    return bool(statements) and all(_plain_create(s) for s in statements)


def _plain_create(statement: exp.Expr) -> bool:
    if not isinstance(statement, exp.Create) or str(statement.args.get("kind")).upper() != "TABLE":
        return False
    if {k for k, v in statement.args.items() if v} - _PLAIN_CREATE:
        return False
    schema = statement.this
    if not isinstance(schema, exp.Schema) or not schema.expressions or not all(
            isinstance(c, exp.ColumnDef) for c in schema.expressions):
        return False
    properties = statement.args.get("properties")
    names = [type(p).__name__ for p in (properties.expressions if properties else ())]
    return not any("Stream" in n or "Live" in n or "Materialized" in n for n in names)
