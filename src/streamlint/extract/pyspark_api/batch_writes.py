"""What a foreach/foreachBatch function writes, read from its code as `BatchWrite` records.

The function is not run: its code, and the module-level helpers it reaches, are searched for
the calls that write, each read as data:

- a DataFrameWriter chain: `df.write.format(f).mode(m).option(k, v).save(p)`, `saveAsTable`,
  `insertInto`, `jdbc`, `parquet`, ..., and `df.writeTo(t).append()` (format, target, mode);
- a Delta merge: `DeltaTable.forName(spark, t).alias("t").merge(src, cond).whenMatched...
  .execute()` (target, ON condition, its clauses with their column lists);
- SQL text given to `spark.sql` / `batch_df.sparkSession.sql` (or a cursor's `execute`):
  MERGE INTO, INSERT, UPDATE, DELETE, CREATE TABLE (extract/sql/writes.py);
- a client's write method (`producer.send(...)`, `collection.insert_one(...)`, `r.hset(...)`),
  known only by its code.

A value is what the code says: a literal's value, a name assigned once to one (in the
function or at module level) followed, anything else its code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import libcst as cst

from streamlint.extract.code_text import code_text
from streamlint.extract.positions import children_of
from streamlint.extract.pyspark_api.batch_data import Flow, written_data, written_expr
from streamlint.extract.sql.writes import Hole, sql_write
from streamlint.model import BatchWrite
from streamlint.model.records import replace
from streamlint.model.secrets import mask_text

# DataFrameWriter methods that write; the ones named for a format give it.
_WRITER_TERMINALS = frozenset({"save", "saveAsTable", "insertInto", "jdbc", "parquet", "json",
                               "csv", "orc", "text", "xml"})
_FORMAT_TERMINALS = frozenset({"jdbc", "parquet", "json", "csv", "orc", "text", "xml"})
# DataFrameWriterV2 (`df.writeTo(t)`) methods that write.
_V2_TERMINALS = frozenset({"append", "overwrite", "overwritePartitions", "create", "replace",
                           "createOrReplace"})
# Options that say where a writer writes.
_TARGET_OPTIONS = ("path", "topic", "dbtable", "table", "keyspace", "collection", "database",
                   "es.resource", "index")
# Methods by which clients of other systems write: Kafka producers, Mongo, Redis, DynamoDB,
# Kinesis, Pub/Sub, Elasticsearch helpers, DB-API cursors.
_CLIENT_WRITES = frozenset({
    "send", "produce", "publish", "insert", "insert_one", "insert_many", "update_one",
    "update_many", "replace_one", "bulk_write", "put", "put_item", "put_record", "put_records",
    "batch_write_item", "send_message", "hset", "hmset", "xadd", "lpush", "rpush", "sadd",
    "zadd", "executemany", "upsert", "write_points", "bulk", "streaming_bulk",
})
# Chains of a Delta merge, in the order they are written.
_MERGE_CLAUSES = ("whenMatchedUpdate", "whenMatchedUpdateAll", "whenMatchedDelete",
                  "whenNotMatchedInsert", "whenNotMatchedInsertAll",
                  "whenNotMatchedBySourceUpdate", "whenNotMatchedBySourceDelete")
_DEPTH = 5

Step = tuple[str, cst.Call | None]
Assigned = dict[str, cst.BaseExpression]


def batch_writes(nodes: Iterable[cst.CSTNode], context: Iterable[cst.CSTNode] = ()
                 ) -> tuple[BatchWrite, ...]:
    """The writes the code of `nodes` makes, in order; names are followed through the
    assignments in `nodes` and in `context` (the module-level statements they reach)."""
    nodes = list(nodes)
    assigned = _assignments([*nodes, *context])
    flow = Flow(nodes)
    found: list[BatchWrite] = []
    for node in nodes:
        for call in calls_in(node):
            write = _write(call, assigned)
            if write is not None:
                data = written_data(written_expr(call, write.kind), flow.at(call), flow)
                found.append(_masked(replace(write, data=write.data + data)))
    return tuple(found)


def _masked(write: BatchWrite) -> BatchWrite:
    """Code shown in a finding never shows a credential (a client's `password=...`)."""
    def mask(text: str | None) -> str | None:
        return mask_text(text) if text is not None else None

    return BatchWrite(write.kind, mask(write.target), mask(write.mode), mask(write.condition),
                      tuple(mask_text(c) for c in write.columns),
                      tuple(replace(d, args=tuple(mask_text(a) for a in d.args))
                            for d in write.data))


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children_of(current)))


# Per node (kept, so an id is never reused): its calls and its assignments, one walk each
# (libcst builds a node's children anew on every access).
_SCANS: dict[int, tuple[cst.CSTNode, list[cst.Call], list[cst.CSTNode]]] = {}


def _scan(node: cst.CSTNode) -> tuple[list[cst.Call], list[cst.CSTNode]]:
    cached = _SCANS.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1], cached[2]
    if len(_SCANS) > 5_000:
        _SCANS.clear()
    calls: list[cst.Call] = []
    assigns: list[cst.CSTNode] = []
    for n in _walk(node):
        if isinstance(n, cst.Call):
            calls.append(n)
        elif isinstance(n, cst.Assign | cst.AnnAssign):
            assigns.append(n)
    _SCANS[id(node)] = (node, calls, assigns)
    return calls, assigns


def calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    return iter(_scan(node)[0])


def _assignments(nodes: Iterable[cst.CSTNode]) -> Assigned:
    """Names assigned exactly once (`x = ...`), with their value; a name assigned twice is
    left as its code."""
    seen: dict[str, cst.BaseExpression | None] = {}
    for node in nodes:
        for n in _scan(node)[1]:
            if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(
                    n.targets[0].target, cst.Name):
                name = n.targets[0].target.value
                seen[name] = None if name in seen else n.value
            elif isinstance(n, cst.AnnAssign) and isinstance(n.target, cst.Name) and n.value:
                name = n.target.value
                seen[name] = None if name in seen else n.value
    return {k: v for k, v in seen.items() if v is not None}


def _chain(expr: cst.BaseExpression, assigned: Assigned, depth: int = 0
           ) -> tuple[cst.BaseExpression, list[Step]]:
    """`a.b(x).c` outside-in as its root and its steps in order, a root name assigned once
    followed into its value."""
    steps: list[Step] = []
    while True:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            steps.append((expr.func.attr.value, expr))
            expr = expr.func.value
        elif isinstance(expr, cst.Attribute):
            steps.append((expr.attr.value, None))
            expr = expr.value
        else:
            break
    steps.reverse()
    if isinstance(expr, cst.Name) and expr.value in assigned and depth < _DEPTH:
        root, before = _chain(assigned[expr.value], assigned, depth + 1)
        if before:
            return root, [*before, *steps]
    return expr, steps


def _arg(call: cst.Call | None, position: int, keyword: str) -> cst.BaseExpression | None:
    if call is None:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    plain = [a.value for a in call.args if a.keyword is None and not a.star]
    return plain[position] if position < len(plain) else None


def _value(expr: cst.BaseExpression | None, assigned: Assigned, depth: int = 0) -> str | None:
    """A value as the code gives it: a string's text (an f-string's holes as `{code}`), a name
    assigned once followed, a number or constant as written, anything else `{code}`."""
    if expr is None:
        return None
    parts = _parts(expr, assigned, depth)
    if parts is not None:
        return "".join("{" + p + "}" if isinstance(p, Hole) else p for p in parts)
    if isinstance(expr, cst.Integer | cst.Float) or (
            isinstance(expr, cst.Name) and expr.value in ("True", "False", "None")):
        return code_text(expr)
    if isinstance(expr, cst.Name) and expr.value in assigned and depth < _DEPTH:
        # A name assigned once is what it was assigned (`OUTPUT = os.environ.get(...)`):
        # renaming the name changes nothing written.
        return _value(assigned[expr.value], assigned, depth + 1)
    # Known only at run time: shown as code, as an f-string's hole is (`{topic}`).
    return "{" + code_text(expr) + "}"


def _parts(expr: cst.BaseExpression, assigned: Assigned, depth: int = 0
           ) -> list[str] | None:
    """A string's text and holes; None when `expr` is not one streamlint can read."""
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return [value if isinstance(value, str) else value.decode(errors="replace")]
    if isinstance(expr, cst.FormattedString):
        found: list[str] = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                found.append(part.value.replace("{{", "{").replace("}}", "}"))
            else:
                inner = part.expression
                known = (_parts(assigned[inner.value], assigned, depth + 1)
                         if isinstance(inner, cst.Name) and inner.value in assigned
                         and depth < _DEPTH and part.format_spec is None
                         and part.conversion is None else None)
                found.extend(known if known is not None else [Hole(code_text(inner))])
        return found
    if isinstance(expr, cst.ConcatenatedString):
        left, right = _parts(expr.left, assigned, depth), _parts(expr.right, assigned, depth)
        return left + right if left is not None and right is not None else None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left, right = _parts(expr.left, assigned, depth), _parts(expr.right, assigned, depth)
        if left is None and right is None:
            return None
        return (left or [Hole(code_text(expr.left))]) + (right or [Hole(code_text(expr.right))])
    if isinstance(expr, cst.Name) and expr.value in assigned and depth < _DEPTH:
        return _parts(assigned[expr.value], assigned, depth + 1)
    return None


def _write(call: cst.Call, assigned: Assigned) -> BatchWrite | None:
    if not isinstance(call.func, cst.Attribute):
        return None
    name = call.func.attr.value
    _, steps = _chain(call, assigned)
    names = [s for s, _ in steps]
    if name in _WRITER_TERMINALS and "write" in names:
        return _writer(steps[names.index("write") + 1:], assigned)
    if name in _V2_TERMINALS and "writeTo" in names:
        return _writer_v2(steps[names.index("writeTo"):], assigned)
    if name == "execute" and "merge" in names:
        return _merge(steps, assigned)
    if name in ("update", "delete") and ("forName" in names or "forPath" in names):
        return _delta_change(name, steps, assigned)
    if name == "sql" and (call.args):
        parts = _parts(call.args[0].value, assigned)
        if parts is None:
            return BatchWrite("sql", None, None, None, (f"sql({code_text(call.args[0].value)})",))
        return sql_write(parts)
    if name == "execute" and call.args:
        parts = _parts(call.args[0].value, assigned)
        return sql_write(parts) if parts is not None else _client(call)
    if name in _CLIENT_WRITES and "write" not in names and "writeStream" not in names:
        return _client(call)
    return None


def _client(call: cst.Call) -> BatchWrite:
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
    return BatchWrite("call", code_text(receiver), None, None, (code_text(call),))


def _writer(steps: list[Step], assigned: Assigned) -> BatchWrite:
    """A DataFrameWriter's settings, from the steps after `.write`."""
    fmt: str | None = None
    mode: str | None = None
    options: dict[str, str | None] = {}
    columns: list[str] = []
    target: str | None = None
    for method, call in steps:
        if method == "format":
            fmt = _value(_arg(call, 0, "source"), assigned)
        elif method == "mode":
            mode = _value(_arg(call, 0, "saveMode"), assigned)
        elif method == "option" and call is not None:
            key = _value(_arg(call, 0, "key"), assigned)
            if key is not None:
                options[key.lower()] = _value(_arg(call, 1, "value"), assigned)
        elif method == "options" and call is not None:
            for arg in call.args:
                if arg.keyword is not None:
                    options[arg.keyword.value.lower()] = _value(arg.value, assigned)
        elif method in ("partitionBy", "bucketBy", "sortBy") and call is not None:
            named = ", ".join(_value(a.value, assigned) or "" for a in call.args)
            columns.append(f"{method}({named})")
        elif method in _WRITER_TERMINALS:
            if method in _FORMAT_TERMINALS:
                fmt = method
            if method in ("saveAsTable", "insertInto"):
                fmt = fmt or "table"
                target = _value(_arg(call, 0, "name" if method == "saveAsTable" else "tableName"),
                                assigned)
                overwrite = _value(_arg(call, 1, "overwrite"), assigned)
                if method == "insertInto" and overwrite == "True":
                    mode = "overwrite"
            elif method == "jdbc":
                target = _value(_arg(call, 1, "table"), assigned)
                url = _value(_arg(call, 0, "url"), assigned)
                options.setdefault("url", url)
            else:
                target = _value(_arg(call, 0, "path"), assigned)
            if method == "save":
                fmt = _value(_arg(call, 1, "format"), assigned) or fmt
            mode = _value(_arg(call, 99, "mode"), assigned) or mode
    if target is None:
        found = [(k, options[k]) for k in _TARGET_OPTIONS if k in options]
        if len(found) == 1:
            target = found[0][1]
        elif found:
            target = ", ".join(f"{k}={v}" for k, v in found)
    if fmt is not None:
        fmt = fmt.lower()
    # Delta's overwrite of the rows matching a predicate only: which rows it replaces.
    return BatchWrite(fmt or "parquet", target, mode, options.get("replacewhere"),
                      tuple(columns))


def _writer_v2(steps: list[Step], assigned: Assigned) -> BatchWrite:
    target = _value(_arg(steps[0][1], 0, "table"), assigned)
    fmt = "table"
    columns: list[str] = []
    condition = None
    for method, call in steps[1:]:
        if method == "using":
            fmt = (_value(_arg(call, 0, "provider"), assigned) or fmt).lower()
        elif method == "partitionedBy" and call is not None:
            columns.append(f"partitionedBy({', '.join(code_text(a.value) for a in call.args)})")
        elif method == "overwrite":
            condition = _value(_arg(call, 0, "condition"), assigned)
    return BatchWrite(fmt, target, steps[-1][0], condition, tuple(columns))


def _table_of(steps: list[Step], assigned: Assigned) -> str | None:
    """The table or path of `DeltaTable.forName(spark, t)` / `forPath(spark, p)`."""
    for method, call in steps:
        if method in ("forName", "forPath"):
            return _value(_arg(call, 1, "tableOrViewName" if method == "forName" else "path"),
                          assigned)
    return None


def _delta_change(name: str, steps: list[Step], assigned: Assigned) -> BatchWrite:
    """`DeltaTable.forName(spark, t).delete(cond)` / `.update(cond, set={...})`."""
    call = steps[-1][1]
    values = _arg(call, 1, "set")
    if isinstance(values, cst.Name) and values.value in assigned:
        values = assigned[values.value]
    columns = tuple(_value(e.key, assigned) or "" for e in values.elements
                    if isinstance(e, cst.DictElement)) if isinstance(values, cst.Dict) else (
        (code_text(values),) if values is not None else ())
    return BatchWrite(name, _table_of(steps, assigned), None,
                      _value(_arg(call, 0, "condition"), assigned), columns)


def _merge(steps: list[Step], assigned: Assigned) -> BatchWrite:
    target = _table_of(steps, assigned)
    condition = None
    clauses: list[str] = []
    for method, call in steps:
        if method == "merge":
            condition = _value(_arg(call, 1, "condition"), assigned)
        elif method in _MERGE_CLAUSES and call is not None:
            clause = method
            when = _value(_arg(call, 0, "condition"), assigned)
            if when is not None:
                clause += f" AND {when}"
            values = _arg(call, 99, "set") or _arg(call, 99, "values") or _arg(call, 1, "")
            if isinstance(values, cst.Name) and values.value in assigned:
                values = assigned[values.value]
            if isinstance(values, cst.Dict):
                keys = [_value(e.key, assigned) or "" for e in values.elements
                        if isinstance(e, cst.DictElement)]
                clause += f" ({', '.join(keys)})"
            elif values is not None:
                clause += f" ({code_text(values)})"
            clauses.append(clause)
    return BatchWrite("merge", target, None, condition, tuple(clauses))
