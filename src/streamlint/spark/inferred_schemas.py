"""Schemas for `--confirm` without configuration: inferred from how the job uses each column.

A table source (`spark.readStream.table(t)`, a Delta or catalog table) or a file source
without a declared schema cannot be stood in without one, and writing `[tool.streamlint.tables]`
for every table is what kept `--confirm` from real jobs. The static extraction of both versions
says which columns the query reads, and how: a watermark or window column is a TIMESTAMP, an
aggregated one (sum, avg, min, max) a DOUBLE, anything else a STRING. Both versions run on the
same inferred schema, so the restart is still compared like for like; every guess is named in
the report's warnings. A configured schema always wins. A stream-static join's static side (a
table read in batch) gets the columns the query reads that the stream side does not have; a
query with several streaming sources gets no guess (which source a column comes from is not
known statically).

Only for a pair of versions (`diff --confirm`, `check --confirm`). Against a real checkpoint
(`diff --checkpoint --confirm`) the state's types decide the verdict and a guessed DOUBLE where
the table has a BIGINT would report a schema change that is not there: that mode still asks
for the table's schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from streamlint.model import Aggregation, Projection, Query, StaticJoin, Watermark, option
from streamlint.model.expr import (
    WINDOW_FUNCTIONS,
    Alias,
    Binary,
    Call,
    Column,
    Definition,
    Expr,
    Field,
    Literal,
    walk,
)
from streamlint.model.records import fields

# How `StaticJoin.on` names the static side (`extract.frames.STATIC_SIDE`; spark/ reads the
# extracted model only).
STATIC_SIDE = "static_source"
TABLE_FORMATS = {"table", "delta", "iceberg", "hudi"}
NUMERIC = {"sum", "avg", "mean", "min", "max", "stddev", "variance", "var_samp", "var_pop"}
EXPLODE = {"explode", "explode_outer", "posexplode", "posexplode_outer"}
_ELEMENT = "[]"  # a path step into an array's elements


class Guess(str):
    """A schema text inferred from the job's use of columns, in the tables the sandbox looks
    schemas up in: configuration is not a guess, and what the job itself says (a declared
    schema, what it writes to the table, sample files on this machine) beats one."""

    __slots__ = ()


@dataclass(frozen=True)
class Inferred:
    name: str  # the table name or path the sandbox looks the schema up by
    ddl: str

    @property
    def warning(self) -> str:
        if self.ddl == PLACEHOLDER:
            return (f"no schema for {self.name}: the job names none of its columns, so it was "
                    f"stood in by one column ({PLACEHOLDER}); add it to "
                    "[tool.streamlint.tables] to set it")
        return (f"no schema for {self.name}: inferred from how the job uses its columns "
                f"({self.ddl}); add it to [tool.streamlint.tables] to set it")


# A source whose query names no column of it (it is copied whole to a sink, counted, shown):
# any schema runs it, and both versions get the same one.
PLACEHOLDER = "value STRING"


def inferred_schemas(queries: Iterable[Query], configured: Mapping[str, str]) -> list[Inferred]:
    """A schema for each source without one (declared or configured), from the queries'
    use of columns; a one-column placeholder for a source whose queries name none."""
    found: dict[str, dict[str, str]] = {}
    for query in queries:
        for name, columns in _static_sides(query):
            if name not in configured:
                merged = found.setdefault(name, {})
                for column, kind in columns.items():
                    if merged.get(column) != "TIMESTAMP":
                        merged[column] = kind
        if len(query.sources) != 1:
            # Which source a column comes from is not known statically: giving every column
            # to each side of a join would make the names ambiguous. Such a query keeps its
            # "cannot confirm" until its tables are configured.
            continue
        types = _column_types(query)
        for source in query.sources:
            name = _lookup_name(source.format, source.identity, source.options)
            if name is None or source.schema is not None or name in configured:
                continue
            merged = found.setdefault(name, {})
            for column, kind in types.items():
                if merged.get(column) != "TIMESTAMP":  # a time column stays one
                    merged[column] = kind
    return [Inferred(name, ", ".join(f"{c} {t}" for c, t in sorted(cols.items()))
                     if cols else PLACEHOLDER) for name, cols in found.items()]


def _static_sides(query: Query) -> list[tuple[str, dict[str, str]]]:
    """The static side of each stream-static join, by the name the sandbox looks its schema up
    by, with the columns the query reads from it: those the join condition and the steps after
    the join name that the stream side does not have (its columns known just before the join),
    and a name both sides of an equality in the condition share (`a.id == b.id`). Nothing
    where the stream side's columns are not known: a guess would make names ambiguous."""
    sides: list[tuple[str, dict[str, str]]] = []
    columns: tuple[str, ...] | None = None  # the stream side's, before the next join
    for position, op in enumerate(query.operators):
        if isinstance(op, Projection):
            columns = op.columns
        elif isinstance(op, StaticJoin):
            name = _static_name(op)
            if name is not None and columns is not None and "*" not in columns:
                wanted = _read_after(op, query.operators[position + 1:])
                wanted = {c for c in wanted if c not in columns} | _shared_keys(op)
                types = _column_types(query)
                sides.append((name, {_quoted(c): types.get(_quoted(c), "STRING")
                                     for c in sorted(wanted)}))
            columns = None
        elif op.kind != "filter" and op.kind != "watermark":
            columns = None  # a step that makes its own columns
    return sides


def _static_name(op: StaticJoin) -> str | None:
    """The lookup name of a join's static side, from the identity `StaticJoin.on` records."""
    for expr in op.on:
        if isinstance(expr, Call) and expr.function == STATIC_SIDE:
            identity = tuple((pair.left.name, pair.right.value) for pair in expr.args
                             if isinstance(pair, Binary) and isinstance(pair.left, Column)
                             and isinstance(pair.right, Literal))
            return _lookup_name("table", identity, ())
    return None


def _read_after(join: StaticJoin, later: tuple[Any, ...]) -> set[str]:
    """The top-level column names the join's condition and the later steps read, less those a
    later step makes itself (`withColumn("x", ...)` then `col("x")`)."""
    made: set[str] = set()
    read: set[str] = set()
    exprs = _exprs(join)
    for op in later:
        exprs_of_op = _exprs(op)
        for expr in exprs_of_op:
            for node in walk(expr):
                if isinstance(node, Alias):
                    made.add(node.name)
        exprs += exprs_of_op
    for expr in exprs:
        for node in walk(expr):
            if isinstance(node, Column) and node.name not in made:
                read.add(node.name.split(".", 1)[0])
    return read


def _shared_keys(join: StaticJoin) -> set[str]:
    return {node.left.name for expr in join.on for node in walk(expr)
            if isinstance(node, Binary) and node.op == "=" and isinstance(node.left, Column)
            and isinstance(node.right, Column) and node.left.name == node.right.name}


def _lookup_name(fmt: object, identity: tuple, options: tuple) -> str | None:
    """The key the sandbox looks a source's schema up by (`Sandbox.source_spec`)."""
    if not isinstance(fmt, str):
        return None
    fmt = fmt.lower()
    if fmt in ("kafka", "rate", "socket", "text"):
        return None  # fixed schemas
    for key in ("table", "path", "tablename", "dbtable"):
        value = option(identity, key) or option(options, key)
        if isinstance(value, str):
            return value
    return None


def _column_types(query: Query) -> dict[str, str]:
    """Each column the query reads, as a DDL type: a struct where the job reads its fields
    (`col("address.city")`, `F.col("address")["city"]`, `address.city` in SQL)."""
    paths: dict[tuple[str, ...], str] = {}
    # `x.f` in SQL: a qualifier that names no source (its table or path) is a struct column.
    sources = {part.lower() for source in query.sources
               for value in (_lookup_name(source.format, source.identity, source.options),)
               if value for part in (value, value.rsplit(".", 1)[-1], value.rsplit("/", 1)[-1])}

    # `explode(items) AS item`: `items` is an array, and `item.f` reads its elements' fields.
    exploded: dict[str, tuple[str, ...]] = {}

    def column_path(node: Column) -> tuple[str, ...]:
        parts = tuple(node.name.split("."))
        qualifier = node.qualifier
        if qualifier and qualifier.lower() not in sources:
            return (*qualifier.split("."), *parts)
        return parts

    def note(path: tuple[str, ...], kind: str, remap: bool = True) -> None:
        if remap and path and path[0] in exploded:
            path = (*exploded[path[0]], *path[1:])
        if path and "*" not in path and paths.get(path) != "TIMESTAMP":
            paths[path] = kind if kind != "STRING" else paths.get(path, "STRING")

    for op in query.operators:
        if isinstance(op, Watermark):
            note(tuple(op.column.split(".")), "TIMESTAMP")
        for expr in _exprs(op):
            inside: set[int] = set()
            for node in walk(expr):
                if isinstance(node, Call) and node.function in EXPLODE and node.args:
                    array = _path(node.args[0])
                    if array:  # the source's own column, even under its own name as alias
                        note((*array, _ELEMENT), "STRING", remap=False)
                if isinstance(node, Alias) and isinstance(node.operand, Call) and \
                        node.operand.function in EXPLODE and node.operand.args:
                    array = _path(node.operand.args[0])
                    if array:
                        exploded[node.name] = (*array, _ELEMENT)
                elif isinstance(node, Call) and node.function in WINDOW_FUNCTIONS and node.args:
                    path = _path(node.args[0])
                    if path:
                        note(path, "TIMESTAMP")
                elif isinstance(node, Field) and id(node) not in inside:
                    path = _path(node)
                    if path:  # the outermost field of a chain names the whole path
                        note(path, "STRING")
                        inside.update(id(n) for n in walk(node))
                elif isinstance(node, Column) and id(node) not in inside:
                    note(column_path(node), "STRING")
        if isinstance(op, Aggregation):
            for agg in op.aggregates:
                for arg in agg.args:
                    path = _path(arg)
                    if agg.function in NUMERIC and path:
                        note(path, "DOUBLE")
    return _ddl_types(paths)


def _path(expr: Expr) -> tuple[str, ...] | None:
    """`col("a.b")` or `col("a")["b"]` as ("a", "b"); None for anything else."""
    keys: list[str] = []
    while isinstance(expr, Field):
        if not isinstance(expr.key, str):
            return None
        keys.append(expr.key)
        expr = expr.operand
    if not isinstance(expr, Column):
        return None
    return (*expr.name.split("."), *reversed(keys))


def _ddl_types(paths: dict[tuple[str, ...], str]) -> dict[str, str]:
    """Top-level columns and their DDL types; a column read by its fields is a STRUCT of them
    (a name read both whole and by fields is the struct)."""
    tree: dict[str, Any] = {}
    for path, kind in sorted(paths.items()):
        node = tree
        for part in path[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        if not isinstance(node.get(path[-1]), dict):
            node[path[-1]] = kind

    def render(value: Any) -> str:
        if isinstance(value, str):
            return value
        if _ELEMENT in value:  # an array: its elements; fields read on it are theirs
            element = value[_ELEMENT]
            fields = {k: v for k, v in value.items() if k != _ELEMENT}
            if fields:
                element = {**(element if isinstance(element, dict) else {}), **fields}
            return f"ARRAY<{render(element)}>"
        return "STRUCT<" + ", ".join(f"{_quoted(k)}: {render(v)}"
                                     for k, v in sorted(value.items())) + ">"

    return {_quoted(name): render(value) for name, value in tree.items()}


def _quoted(name: str) -> str:
    return name if name.isidentifier() else "`" + name.replace("`", "``") + "`"


def _exprs(op: object) -> list[Expr]:
    """Every expression an operator record holds (keys, conditions, projections, inputs)."""
    out: list[Expr] = []
    for name in fields(op):
        value = getattr(op, name)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if isinstance(item, Definition):
                out.append(item.expr)
            elif hasattr(item, "args") and hasattr(item, "function") and not isinstance(
                    item, Call):  # AggCall
                out.extend(item.args)
            elif isinstance(item, Call) and item.function == STATIC_SIDE:
                continue  # a join's static side named by its identity, no column of the query
            elif type(item).__module__ == "streamlint.model.expr":
                out.append(item)
    return out
