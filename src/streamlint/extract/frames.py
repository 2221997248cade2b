"""The DataFrame operators that carry expressions: projections, joins, aggregations and
the keys of the stateful ones, built from `Col` trees into the records of `streamlint.model`.

Each stateful operator also records how the columns it reads were computed upstream
(`Definition`s), since the same key name computed another way is another key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamlint.extract.columns import (
    aliased,
    as_col,
    column,
    literal,
    literal_expr,
    plain,
    sql_text,
)
from streamlint.extract.spark_values import Col, Plan
from streamlint.model import (
    External,
    Filter,
    Loc,
    Projection,
    Unknown,
)
from streamlint.model.expr import (
    Alias,
    Call,
    Cast,
    Column,
    Definition,
    Expr,
    Literal,
    Star,
    call,
    render,
    walk,
)
from streamlint.model.schema_text import split_top_level

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

JOIN_TYPES = {
    "inner": "inner", "cross": "cross", "outer": "full_outer", "full": "full_outer",
    "fullouter": "full_outer", "full_outer": "full_outer", "left": "left_outer",
    "leftouter": "left_outer", "left_outer": "left_outer", "right": "right_outer",
    "rightouter": "right_outer", "right_outer": "right_outer", "semi": "left_semi",
    "leftsemi": "left_semi", "left_semi": "left_semi", "anti": "left_anti",
    "leftanti": "left_anti", "left_anti": "left_anti",
}
# The function `StaticJoin.on` names the static side's identity with (not a Spark function).
STATIC_SIDE = "static_source"


def steps_text(operators: tuple[Any, ...]) -> str:
    """A static side's steps as people read them: `select(a, b), filter(...)`."""
    def one(op: Any) -> str:
        if isinstance(op, Projection):
            return f"{op.method}({', '.join(render(e) for e in op.exprs)})"
        if isinstance(op, Filter):
            return f"filter({render(op.condition)})"
        return str(getattr(op, "method", op.kind))
    return ", ".join(one(op) for op in operators)


def flatten(args: list[Any]) -> list[Any]:
    if len(args) == 1 and isinstance(args[0], tuple):
        return list(args[0])
    return args


def unresolved_plan(origin: Any, loc: Loc) -> Plan:
    """A DataFrame streamlint cannot follow: no sources known, and a note saying so.

    A join or union with it is kept (with this note), never silently dropped.
    """
    if not isinstance(origin, Unknown):
        known = plain(origin)
        origin = known if isinstance(known, Unknown) else Unknown(repr(known))
    note = (External(f"the DataFrame comes from `{origin.text}`, which streamlint cannot "
                     f"follow", f"the DataFrame comes from `{origin}`, which streamlint "
                                f"cannot follow"), loc)
    return Plan(sources=(), operators=(), streaming=True, columns=None, unresolved=(note,))


# -- where a column came from ---------------------------------------------------------------


def origin(plan: Plan, expr: Expr) -> Expr:
    """What a column reference finally stands for, through renames: the expression that
    computed it upstream, or the plain column when nothing did."""
    for _ in range(10):
        if not isinstance(expr, Column):
            return expr
        definition = plan.definition(expr.name)
        if definition is None or definition == expr:
            return expr
        expr = definition
    return expr


def resolved_key(plan: Plan, col: Col) -> Expr:
    """A key through upstream renames: `withColumnRenamed("user_id", "uid").groupBy("uid")`
    groups by the same column as `groupBy(F.col("user_id").alias("uid"))`."""
    expr = col.bare
    for _ in range(10):
        if not isinstance(expr, Column):
            return expr
        definition = plan.definition(expr.name)
        if not isinstance(definition, Column) or definition == expr:
            return expr
        expr = definition
    return expr


def inputs_of(plan: Plan, cols: list[Col]) -> tuple[Definition, ...]:
    """How each column a stateful operator reads was computed upstream (for type changes)."""
    seen: dict[str, Definition] = {}
    for col in cols:
        for ref in col.refs - {"*"}:
            computed = origin(plan, Column(ref))
            if computed != Column(ref):
                seen[ref] = Definition(ref, computed)
    return tuple(seen[k] for k in sorted(seen))


def _defines(col: Col) -> bool:
    """Whether selecting `col` computes its output column (not just passes one through)."""
    bare = col.bare
    return bool(col.name) and not (isinstance(bare, Column) and bare.name == col.name)


# -- projections ----------------------------------------------------------------------------


def project(plan: Plan, name: str, cols: list[Col], args: list[Any],
            kwargs: dict[str, Any], loc: Loc) -> Plan:
    """select/withColumn/rename/drop/...: `cols` are the selected columns (select-like)."""
    columns = list(plan.columns) if plan.columns is not None else None
    definitions = list(plan.definitions)
    exprs: list[Expr] = []
    if name in ("select", "selectExpr", "toDF"):
        columns = _select(plan, name, cols, args, columns, exprs, definitions)
    elif name in ("withColumn", "withColumns"):
        _with_columns(name, args, kwargs, columns, exprs, definitions)
    elif name in ("withColumnRenamed", "withColumnsRenamed"):
        columns = _rename(plan, args, kwargs, columns, exprs, definitions)
    elif name == "drop":
        _drop(args, columns, exprs)
    else:
        exprs.extend(literal_expr(a) for a in args)
        if name not in ("alias",):
            columns = None
    known = tuple(columns) if columns is not None else None
    return plan.then(Projection(name, tuple(exprs), known, loc), columns=known,
                     definitions=tuple(definitions))


# Each kind of projection below adds to `exprs` and `definitions` and returns the columns
# after it, or updates `columns` in place (None: not known).

def _select(plan: Plan, name: str, cols: list[Col], args: list[Any], columns: list[str] | None,
            exprs: list[Expr], definitions: list[Definition]) -> list[str] | None:
    new_columns: list[str] = []
    star_unknown = False
    for col in cols:
        exprs.append(col.expr)
        bare = col.bare
        if isinstance(bare, Star) and bare.qualifier is None:
            # `*` is every input column: the output is only known if the input is.
            star_unknown = star_unknown or columns is None
            new_columns.extend(columns or ())
            continue
        if isinstance(bare, Star):
            expanded = expand_struct(plan, bare.qualifier or "")
            if expanded:
                new_columns.extend(item.name for item in expanded)
                definitions.extend(expanded)
                continue
        new_columns.append(col.name or render(bare))
        if _defines(col):
            definitions.append(Definition(str(col.name), bare))
    if name == "toDF":
        new_columns = [str(a) for a in flatten(args)]
    return None if star_unknown and name != "toDF" else new_columns


def _with_columns(name: str, args: list[Any], kwargs: dict[str, Any], columns: list[str] | None,
                  exprs: list[Expr], definitions: list[Definition]) -> None:
    if name == "withColumn":
        col_name, value = (args + [None, None])[:2]
        if col_name is None:
            col_name = kwargs.get("colName")
        pairs = [(col_name, value if value is not None else kwargs.get("col"))]
    else:
        mapping = args[0] if args and isinstance(args[0], dict) else kwargs
        pairs = list(mapping.items())
    for col_name, value in pairs:
        # A symbolic object's repr can be huge: its text names it.
        label = col_name if isinstance(col_name, str) else literal(col_name)
        col = as_col(value)
        exprs.append(aliased(col.expr, label))
        definitions.append(Definition(label, col.bare))
        if columns is not None and label not in columns:
            columns.append(label)


def _rename(plan: Plan, args: list[Any], kwargs: dict[str, Any], columns: list[str] | None,
            exprs: list[Expr], definitions: list[Definition]) -> list[str] | None:
    given = list(args) + [kwargs.get(k) for k in ("existing", "new")][len(args):]
    mapping = args[0] if args else kwargs.get("colsMap")
    pairs = (list(mapping.items()) if isinstance(mapping, dict)
             else [tuple(given[:2])] if len(given) >= 2 and None not in given[:2] else [])
    if not pairs:  # a call Spark itself refuses, or a map not known here: columns unknown
        exprs.extend(literal_expr(a) for a in args)
        columns = None
    for old, new in ((o if isinstance(o, str) else literal(o),
                      n if isinstance(n, str) else literal(n)) for o, n in pairs):
        exprs.append(Alias(Column(old), new))
        definitions.append(Definition(new, Column(old)))  # a rename: the same column
        if columns is not None:
            columns = [new if c == old else c for c in columns]
            if old not in (plan.columns or ()):
                columns.append(f"{old}->{new}")
    return columns


def _drop(args: list[Any], columns: list[str] | None, exprs: list[Expr]) -> None:
    for item in flatten(args):
        col = as_col(item)
        text = item if isinstance(item, str) else col.name or render(col.expr)
        exprs.append(call("drop", column(text).expr if isinstance(item, str) else col.expr))
        if columns is not None:
            if text in columns:
                columns.remove(text)
            else:
                columns.append(f"-{text}")


def expand_struct(plan: Plan, struct: str) -> list[Definition]:
    """`select("o.*")` after `from_json(...).alias("o")`: one column per schema field."""
    definition = plan.definition(struct)
    if definition is None:
        return []
    # The struct's type: a literal argument (`from_json(c, schema)`) or a cast's (a UDF's).
    typed = (node.value if isinstance(node, Literal) else node.to if isinstance(node, Cast)
             else None for node in walk(definition))
    schema = next((t for t in typed if isinstance(t, str) and t.startswith("struct<")), None)
    if schema is None or not schema.endswith(">"):
        return []
    fields = split_top_level(schema[len("struct<"):-1])
    # The struct's alias ("o") is gone once it is flattened: naming it here would make a
    # renamed alias look like a column computed differently. The field's type is what counts.
    out = []
    for item in fields:
        if ":" in item:
            name, type_text = item.split(":", 1)
            out.append(Definition(name, Cast(Column(name), type_text.split(" not null")[0])))
    return out


def sql_projection(sql: str) -> Expr:
    return Call("sql", (Literal(sql_text(sql)),))


# -- joins ----------------------------------------------------------------------------------


def side_columns(plan: Plan) -> tuple[str, ...] | None:
    """The columns one side brings to a join (what its join state stores), when known."""
    if plan.columns is None or "*" in plan.columns:
        return None
    return plan.columns


# -- where an operator was applied from -----------------------------------------------------


def made_through(interp: Interpreter, before: Plan, result: Any) -> Any:
    """`result`, a DataFrame method's, with the operators it added to `before` recorded with
    the calls the run is inside (`Query.made_through`): an operator a helper applies, from
    the call that made this query's."""
    plan = result if isinstance(result, Plan) else getattr(result, "plan", None)
    if (isinstance(plan, Plan) and interp.sites
            and len(plan.operators) > len(before.operators)):
        stack = tuple(interp.loc(site) for site in interp.sites)
        for op in plan.operators[len(before.operators):]:
            interp.effects.made_through.setdefault(id(op), (op, stack))
    return result


# -- groupings ------------------------------------------------------------------------------
