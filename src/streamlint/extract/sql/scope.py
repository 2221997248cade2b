"""What one `spark.sql(...)` call lowers its statements in: the interpreter, the call, its CTEs;
and how SQL that is not lowered is kept as a note (never dropped)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst
from sqlglot import exp
from sqlglot.errors import SqlglotError

from streamlint.extract.pyspark_api.dataframe import dataframe_call
from streamlint.extract.spark_values import Plan
from streamlint.extract.sql.dialect import (
    StreamingSpark,
)
from streamlint.model import Loc
from streamlint.model.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


@dataclass
class Scope:
    interp: Interpreter
    node: cst.Call
    loc: Loc
    ctes: dict[str, Plan] = field(default_factory=dict)

    def call(self, plan: Plan, method: str, *args: Any) -> Any:
        return dataframe_call(self.interp, plan, method, list(args), {}, self.node, self.loc)

    def note(self, plan: Plan, what: str) -> Plan:
        note = (f"the SQL {what} is not analysed by streamlint", self.loc)
        return replace(plan, unresolved=(*plan.unresolved, note))


def table_name(node: exp.Expr) -> str:
    if isinstance(node, exp.Table):
        return ".".join(p.name for p in node.parts)
    if isinstance(node, exp.Column):
        return ".".join(p.name for p in node.parts)
    return node.name if isinstance(node, exp.Expr) else str(node)


def sql_text(node: exp.Expr) -> str:
    try:
        return node.sql(dialect=StreamingSpark)
    except SqlglotError:
        return type(node).__name__


def unread(scope: Scope, node: exp.Expr | None) -> Plan:
    """A relation or query form not lowered: no sources known, and a note saying so."""
    text = sql_text(node) if node is not None else "SQL"
    plan = Plan(sources=(), operators=(), streaming=True, columns=None)
    return scope.note(plan, f"`{text}`")
