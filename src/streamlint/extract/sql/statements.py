"""Spark SQL statements lowered to the operators DataFrame code produces.

A SELECT is read as the DataFrame chain a job would write for it, driving the same method
handlers on the symbolic plan: FROM is a temp view's plan or a table read (`STREAM(t)` and
`STREAM t` are `spark.readStream.table(t)`, a plain name `spark.read.table(t)`), each JOIN
is `join`, WHERE `filter`, GROUP BY with aggregates `groupBy().agg()`, HAVING a `filter`
after it, the select list `select`, DISTINCT an aggregation over every selected column (Spark
plans SQL's DISTINCT as an Aggregate, ReplaceDistinctWithAggregate, not as the Deduplicate of
`dropDuplicates()`: a restart from one to the other is refused, measured in
tests/spark_cases/sql_dropduplicates_to_select_distinct). A DataFrame ↔ SQL rewrite
of one query therefore gives equal operators. What is not lowered stays a note on the plan
(a "review" naming the line), never a crash and never silently equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst
from sqlglot import exp
from sqlglot.errors import SqlglotError

from streamlint.extract.pyspark_api.grouped import grouped_call
from streamlint.extract.pyspark_api.reader import reader_call
from streamlint.extract.pyspark_api.settings import record_settings
from streamlint.extract.spark_values import Grouped, Plan, Reader, column
from streamlint.extract.sql.bridge import to_col
from streamlint.extract.sql.canon import has_aggregate
from streamlint.extract.sql.dialect import (
    NAME_ARG,
    STREAM_ARG,
    WATERMARK_ARG,
    StreamingSpark,
    parse_statements,
)
from streamlint.extract.sql.expressions import lower
from streamlint.extract.sql.grouping import aggregate
from streamlint.extract.sql.scope import Scope, sql_text, table_name, unread
from streamlint.extract.values import EnvDefault
from streamlint.model import Loc, Unknown
from streamlint.model.expr import (
    Column,
    Interval,
    Star,
    render_interval,
)
from streamlint.model.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# Select clauses lowered here (sqlglot 30 names FROM and WITH `from_`, `with_`).
_LOWERED = {"expressions", "from_", "from", "joins", "where", "group", "having", "distinct",
            "order", "limit", "with_", "with", "hint", "kind",
            # repartition / sortWithinPartitions, which DataFrame code passes through too
            "cluster", "distribute", "sort"}
# Select clauses not lowered, as SQL spells them (for the note).
_CLAUSES = {"laterals": "LATERAL VIEW", "windows": "WINDOW", "qualify": "QUALIFY",
            "pivots": "PIVOT", "offset": "OFFSET", "sample": "TABLESAMPLE", "into": "INTO"}
# A tree of a shape the lowering did not expect (sqlglot's trees vary by version).
SHAPE_ERRORS = (AttributeError, TypeError, ValueError, KeyError, IndexError)
# Statements that change nothing a query restarts with: read as nothing.
INERT = (exp.Describe, exp.Show, exp.Use, exp.Cache, exp.Uncache, exp.Drop)


def run_sql(interp: Interpreter, text: str, node: cst.Call, loc: Loc) -> Any:
    """`spark.sql(text)`: a DataFrame plan for a query, a temp view registered for
    `CREATE TEMP VIEW ... AS`, an unknown value for anything else."""
    scope = Scope(interp, node, loc)
    views = dict(interp.ext.views)
    try:
        statements = [s for s in parse_statements(text) if s is not None]
        result: Any = Unknown(f"spark.sql({text!r})")
        for statement in statements:
            result = _statement(scope, statement, text)
    except (SqlglotError, RecursionError) + SHAPE_ERRORS:
        return unparsed(scope, text)
    if isinstance(text, EnvDefault):
        # Text pasted in from a widget or an environment variable: its default was read, but
        # a deployment's own value can change the statement itself.
        what = (f"`{' '.join(text.split())}` (built with a value read at run time; its "
                "default was read)")
        for name, plan in interp.ext.views.items():
            if views.get(name) is not plan:
                interp.ext.views[name] = scope.note(plan, what)
        if isinstance(result, Plan):
            result = scope.note(result, what)
    return result


def settings(statement: exp.Expr) -> list[tuple[str, str]] | None:
    """`SET key = value, ...` as (key, value) pairs, as Spark keeps them (text); None for
    anything else (`SET key` alone shows a value and sets nothing)."""
    if not isinstance(statement, exp.Set) or statement.args.get("unset"):
        return None
    pairs = []
    for item in statement.expressions:
        pair = item.this if isinstance(item, exp.SetItem) else None
        if not isinstance(pair, exp.EQ) or not isinstance(pair.expression,
                                                          exp.Literal | exp.Boolean):
            return None
        value = pair.expression
        text = (str(value.this).lower() if isinstance(value, exp.Boolean) else str(value.this))
        pairs.append((pair.this.sql(dialect=StreamingSpark), text))
    return pairs


def _created_view(text: str) -> str | None:
    """The view a `CREATE ... VIEW name` statement sqlglot could not read creates."""
    from sqlglot.tokens import Tokenizer, TokenType

    try:
        tokens = Tokenizer().tokenize(text)
    except (SqlglotError, RecursionError):
        return None
    kinds = [t.token_type for t in tokens]
    if not kinds or kinds[0] != TokenType.CREATE or TokenType.VIEW not in kinds:
        return None
    at = kinds.index(TokenType.VIEW) + 1
    while at < len(tokens) and tokens[at].text.upper() in ("IF", "NOT", "EXISTS"):
        at += 1
    return tokens[at].text.strip("`").lower() if at < len(tokens) else None


def _statement(scope: Scope, statement: exp.Expr, text: str) -> Any:
    if isinstance(statement, exp.Query):
        return query(scope, statement)
    if isinstance(statement, exp.Create) and str(statement.args.get("kind")).upper() == "VIEW" \
            and isinstance(statement.expression, exp.Query):
        name = table_name(statement.this)
        scope.interp.ext.views[name.lower()] = query(scope, statement.expression)
        return None
    pairs = settings(statement)
    if pairs is not None:  # SET key = value: a session setting, as spark.conf.set
        for key, value in pairs:
            record_settings(scope.interp, [key, value], {}, scope.loc)
        return None
    if isinstance(statement, exp.Command):  # sqlglot read only its first word
        return unparsed(scope, text)
    if isinstance(statement, INERT):
        return None
    # INSERT, MERGE (sink logic in a foreachBatch body), other DDL: not a DataFrame.
    return Unknown(f"spark.sql({text!r})")


def unparsed(scope: Scope, text: str) -> Any:
    """SQL sqlglot cannot read: the temp views it names still count, with a note; a view it
    creates is that (a DataFrame with a note), never a table of the same name."""
    view = _created_view(text)
    if view is not None:
        plan = _read_anyway(scope, text)
        if not isinstance(plan, Plan):
            plan = Plan(sources=(), operators=(), streaming=True, columns=None)
            plan = scope.note(plan, f"`{' '.join(text.split())}` (it could not be parsed)")
        scope.interp.ext.views[view] = plan
        return None
    return _read_anyway(scope, text)


def _read_anyway(scope: Scope, text: str) -> Any:
    from sqlglot.tokens import Tokenizer, TokenType

    try:
        tokens = Tokenizer().tokenize(text)
    except (SqlglotError, RecursionError):
        tokens = []
    names = [b.text.lower() for a, b in zip(tokens, tokens[1:], strict=False)
             if a.token_type in (TokenType.FROM, TokenType.JOIN)]
    plans = [scope.interp.ext.views[n] for n in names if n in scope.interp.ext.views]
    if not plans:
        return Unknown(f"spark.sql({text!r})")
    plan = plans[0]
    for other in plans[1:]:
        plan = replace(plan, sources=plan.sources + other.sources,
                       operators=plan.operators + other.operators,
                       unresolved=plan.unresolved + other.unresolved)
    return scope.note(replace(plan, columns=None), f"`{' '.join(text.split())}` (it could not "
                      "be parsed)")


def query(scope: Scope, node: exp.Expr) -> Plan:
    """A query expression (SELECT, UNION, a parenthesized subquery) as a plan."""
    if isinstance(node, exp.Subquery):
        return query(scope, node.this)
    if isinstance(node, exp.Union):
        left, right = query(scope, node.this), query(scope, node.expression)
        plan = scope.call(left, "union", right)
        return _distinct(scope, plan) if node.args.get("distinct") else plan
    if isinstance(node, exp.Select):
        return select(scope, node)
    return unread(scope, node)


def select(scope: Scope, node: exp.Select) -> Plan:
    with_ = node.args.get("with_") or node.args.get("with")
    if with_ is not None:
        scope = Scope(scope.interp, scope.node, scope.loc, dict(scope.ctes))
        for cte in with_.expressions:
            scope.ctes[cte.alias.lower()] = query(scope, cte.this)
    from_ = node.args.get("from_") or node.args.get("from")
    if from_ is None:  # `SELECT current_user()`: one static row
        return Plan(sources=(), operators=(), streaming=False, columns=None)
    node = _unqualified(node, [from_.this, *(j.this for j in node.args.get("joins") or ())])
    from_ = node.args.get("from_") or node.args.get("from")
    plan = relation(scope, from_.this)
    for join in node.args.get("joins") or ():
        plan = _join(scope, plan, join)
    where = node.args.get("where")
    if where is not None:
        plan = scope.call(plan, "filter", to_col(lower(where.this)))
    items = [lower(e) for e in node.expressions]
    group = node.args.get("group")
    if group is not None or any(has_aggregate(i) for i in items):
        plan = aggregate(scope, plan, items, group, node.args.get("having"))
    elif items != [Star()]:  # `SELECT *` is the relation itself
        plan = scope.call(plan, "select", *(to_col(i) for i in items))
    if node.args.get("distinct") is not None:
        plan = _distinct(scope, plan)
    order = node.args.get("order")
    if order is not None:
        plan = scope.call(plan, "orderBy", *(to_col(lower(o)) for o in order.expressions))
    limit = node.args.get("limit")
    if limit is not None:
        plan = scope.call(plan, "limit", to_col(lower(limit.expression)))
    unread = sorted(k for k, v in node.args.items() if v and k not in _LOWERED)
    if unread:
        clauses = ", ".join(_CLAUSES.get(k, k.upper()) for k in unread)
        plan = scope.note(plan, f"{clauses} in `{sql_text(node)}`")
    return plan


def _unqualified(node: exp.Select, relations: list[exp.Expr]) -> exp.Select:
    """The SELECT with its columns named as Spark resolves them, not as they were spelled:
    over one relation a qualifier (`o.amount` over `FROM orders o`, or `orders.amount`) names
    nothing more than the column; over several, a table's alias stands for the table's name,
    so `o.id` and `orders.id` are one column. A reformatted query is then the same query."""
    names: dict[str, str | None] = {}
    for item in relations:
        alias = item.alias_or_name.lower() if item.alias_or_name else ""
        name = item.name.lower() if isinstance(item, exp.Table) and item.name else alias
        if alias:
            names[alias] = name
        if name:
            names.setdefault(name, name)
    if not names:
        return node
    single = len(relations) == 1
    if not any(c.table and c.table.lower() in names for c in node.find_all(exp.Column)):
        return node
    node = node.copy()
    for col in node.find_all(exp.Column):
        table = col.table.lower() if col.table else ""
        if table in names and not col.args.get("db"):
            if single:
                col.set("table", None)
            else:
                col.set("table", exp.to_identifier(names[table]))
    return node


def _distinct(scope: Scope, plan: Plan) -> Plan:
    """`SELECT DISTINCT a, b` as Spark plans it: an aggregation keyed by every selected
    column, with no aggregate functions."""
    names = plan.columns if plan.columns is not None and "*" not in plan.columns else None
    keys = [column(name) for name in names] if names else [to_col(Star())]
    grouped = scope.call(plan, "groupBy", *keys)
    if not isinstance(grouped, Grouped):
        return scope.note(plan, "a DISTINCT it could not key")
    return grouped_call(scope.interp, grouped, "agg", [], {}, scope.node, scope.loc)


def relation(scope: Scope, node: exp.Expr) -> Plan:
    """A FROM or JOIN item: a CTE, a temp view, a table, or a subquery; with Spark 4's
    `WATERMARK c DELAY OF d` clause, `withWatermark(c, d)` on it."""
    plan = _relation(scope, node)
    watermark = node.args.get(WATERMARK_ARG) if isinstance(node, exp.Table) else None
    if watermark is None:
        return plan
    column, delay = (lower(part) for part in watermark)
    if not isinstance(column, Column) or not isinstance(delay, Interval):
        return scope.note(plan, f"the watermark clause of `{sql_text(node)}`")
    return scope.call(plan, "withWatermark", column.name, render_interval(delay.micros))


def _relation(scope: Scope, node: exp.Expr) -> Plan:
    if isinstance(node, exp.Subquery):
        return query(scope, node.this)
    if not isinstance(node, exp.Table):
        return unread(scope, node)
    streaming = bool(node.args.get(STREAM_ARG))
    target: exp.Expr = node
    if isinstance(node.this, exp.Anonymous) and str(node.this.this).upper() == "STREAM" \
            and len(node.this.expressions) == 1:
        streaming, target = True, node.this.expressions[0]
    elif isinstance(node.this, exp.Func | exp.Anonymous):  # read_files(...), range(...)
        return unread(scope, node)
    name = table_name(target)
    if name.lower() in scope.ctes:
        return scope.ctes[name.lower()]
    if name.lower() in scope.interp.ext.views:
        return scope.interp.ext.views[name.lower()]
    reader = Reader(streaming=streaming, loc=scope.loc, name=node.args.get(NAME_ARG))
    plan = reader_call(scope.interp, reader, "table", [name], {}, scope.loc)
    return plan if isinstance(plan, Plan) else unread(scope, node)


def _join(scope: Scope, left: Plan, join: exp.Join) -> Plan:
    right = relation(scope, join.this)
    if join.args.get("method"):  # NATURAL JOIN: its keys are the columns both sides share
        return scope.note(scope.call(left, "join", right, None, "inner"), f"`{sql_text(join)}`")
    how = " ".join(str(join.args.get(k) or "") for k in ("side", "kind")).strip() or "inner"
    on: Any = None
    if join.args.get("on") is not None:
        on = to_col(lower(join.args["on"]))
    elif join.args.get("using"):
        on = tuple(i.name for i in join.args["using"])
    elif how == "inner":
        how = "cross"
    return scope.call(left, "join", right, on, how)


