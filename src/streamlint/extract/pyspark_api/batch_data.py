"""What a write in a foreachBatch function writes: the steps from the batch to the written data,
as `WrittenStep` records (extract/pyspark_api/batch_writes.py reads where and how it writes).

The data is followed back from the write (the DataFrame before `.write` or `.writeTo`, a
merge's source, a client call's argument) through the names it was last assigned to before
the write, so `df = df.dropDuplicates(...)` then `df.write...` reads as the deduplication.
Each DataFrame method is classified by what it does to what is written (the `*_METHODS`
tables below); a method not in them (caching, a repartition, a hint, `toPandas`) changes
nothing written. A field set on each record of a client's write (`for r in records:
r["k"] = v`) is a column written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import libcst as cst

from streamlint.extract.code_text import code_text
from streamlint.extract.positions import children_of
from streamlint.model import WrittenStep

# Which columns are written.
COLUMN_METHODS = frozenset({"select", "selectExpr", "withColumn", "withColumns",
                            "withColumnRenamed", "withColumnsRenamed", "drop", "toDF"})
# Which rows are written, other than by a predicate: a deduplication keeps one row of each key,
# a join or union brings others, an aggregation writes groups.
ROW_METHODS = frozenset({
    "dropDuplicates", "drop_duplicates", "dropDuplicatesWithinWatermark", "distinct", "join",
    "crossJoin", "union", "unionAll", "unionByName", "limit", "offset", "sample", "sampleBy",
    "intersect", "intersectAll", "exceptAll", "subtract", "dropna", "groupBy", "groupby",
    "rollup", "cube", "agg", "pivot",
})
# Rows kept by a predicate.
FILTER_METHODS = frozenset({"filter", "where"})
# Where the steps of the data end and the writer's begin.
_WRITERS = frozenset({"write", "writeTo", "writeStream"})
_DEPTH = 8


class Flow:
    """The assignments and loops of the code read, in source order, so that a name is
    followed to the value it was last assigned before the point it is used at."""

    def __init__(self, nodes: Iterable[cst.CSTNode]) -> None:
        self.order: dict[int, int] = {}
        self.assigned: dict[str, list[tuple[int, cst.BaseExpression]]] = {}
        self.loops: dict[str, list[tuple[int, cst.For]]] = {}
        # What each function of the code read returns (its last `return`), so a helper that
        # builds the data (`prepare(batch_df).write...`) is part of the function.
        self.returns: dict[str, tuple[int, cst.BaseExpression]] = {}
        index = 0
        functions: list[cst.FunctionDef] = []
        for node in nodes:
            for n in _walk(node):
                index += 1
                self.order.setdefault(id(n), index)
                name, value = _assignment(n)
                if name is not None and value is not None:
                    self.assigned.setdefault(name, []).append((index, value))
                if isinstance(n, cst.FunctionDef):
                    functions.append(n)
                if isinstance(n, cst.For) and isinstance(n.iter, cst.Name):
                    self.loops.setdefault(n.iter.value, []).append((index, n))
        for function in functions:
            returns = [n for n in _walk(function.body, nested=False)
                       if isinstance(n, cst.Return) and n.value is not None]
            if returns:
                self.returns[function.name.value] = (self.at(returns[-1]), returns[-1].value)

    def at(self, node: cst.CSTNode) -> int:
        return self.order.get(id(node), 1 << 30)

    def value(self, name: str, before: int) -> tuple[int, cst.BaseExpression] | None:
        found = [(i, v) for i, v in self.assigned.get(name, ()) if i < before]
        return found[-1] if found else None


def _walk(node: cst.CSTNode, nested: bool = True) -> Iterator[cst.CSTNode]:
    """`node` and what it holds, in source order; without the functions defined in it
    unless `nested`."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if nested or not isinstance(current, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            stack.extend(reversed(children_of(current)))


def _assignment(node: cst.CSTNode) -> tuple[str | None, cst.BaseExpression | None]:
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(
            node.targets[0].target, cst.Name):
        return node.targets[0].target.value, node.value
    if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
        return node.target.value, node.value
    return None, None


def written_expr(call: cst.Call, kind: str) -> cst.BaseExpression | None:
    """What the write `call` writes: the writer's own chain (its steps before `.write`), a
    merge's source, a client call's first argument; None for a write of SQL text (its query
    is read with the statement) or a Delta update or delete."""
    chain: list[tuple[str, cst.Call | None]] = []
    expr: cst.BaseExpression = call
    while isinstance(expr, cst.Call | cst.Attribute):
        func = expr.func if isinstance(expr, cst.Call) else expr
        if not isinstance(func, cst.Attribute):
            break
        chain.append((func.attr.value, expr if isinstance(expr, cst.Call) else None))
        expr = func.value
    methods = {m for m, _ in chain}
    if methods & {"write", "writeTo"}:
        return call
    merge = next((c for m, c in chain if m == "merge" and c is not None), None)
    if merge is not None or kind == "call":
        args = (merge or call).args
        keyed = [a.value for a in args if a.keyword is not None and a.keyword.value == "source"]
        plain = [a.value for a in args if a.keyword is None and not a.star]
        return (keyed or plain or [None])[0]
    return None


def written_data(expr: cst.BaseExpression | None, before: int, flow: Flow
                 ) -> tuple[WrittenStep, ...]:
    """The steps from the batch to `expr` (used at position `before`), with a field set on
    each of its records when it is a name looped over."""
    if expr is None:
        return ()
    steps = _cancelled(_steps(expr, before, flow, 0))
    if isinstance(expr, cst.Name):
        steps += _fields_set(expr.value, before, flow)
    return tuple(steps)


def _steps(expr: cst.BaseExpression, before: int, flow: Flow, depth: int
           ) -> list[WrittenStep]:
    chain: list[tuple[str, cst.Call | None]] = []
    while True:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            chain.append((expr.func.attr.value, expr))
            expr = expr.func.value
        elif isinstance(expr, cst.Attribute):
            chain.append((expr.attr.value, None))
            expr = expr.value
        else:
            break
    chain.reverse()
    names = [m for m, _ in chain]
    cut = next((i for i, m in enumerate(names) if m in _WRITERS), len(chain))
    found: list[WrittenStep] = []
    if isinstance(expr, cst.Name) and depth < _DEPTH:
        assigned = flow.value(expr.value, before)
        if assigned is not None:
            found = _steps(assigned[1], assigned[0], flow, depth + 1)
    elif (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and depth < _DEPTH
          and expr.func.value in flow.returns):
        returned = flow.returns[expr.func.value]
        found = _steps(returned[1], returned[0], flow, depth + 1)
    previous = ""
    for method, call in chain[:cut]:
        step = _classified(method, call, previous, before, flow)
        if step is not None:
            found.append(step)
        previous = method
    return found


def _classified(method: str, call: cst.Call | None, previous: str, before: int, flow: Flow
                ) -> WrittenStep | None:
    if call is None:
        return None
    if previous == "na":  # `df.na.drop()` drops rows; `na.fill` / `na.replace` change values
        return WrittenStep("rows", "na.drop", _args(call, before, flow)) if (
            method == "drop") else None
    if method in FILTER_METHODS:
        return WrittenStep("filter", method, _args(call, before, flow))
    if method in ROW_METHODS:
        return WrittenStep("rows", method, _args(call, before, flow))
    if method not in COLUMN_METHODS:
        return None
    if method == "withColumn":
        # The column's name: what is computed under it is a projection's business.
        return WrittenStep("columns", method, _args(call, before, flow)[:1])
    if method == "withColumns" and call.args and isinstance(call.args[0].value, cst.Dict):
        keys = tuple(_text(e.key, before, flow) for e in call.args[0].value.elements
                     if isinstance(e, cst.DictElement))
        return WrittenStep("columns", method, keys)
    return WrittenStep("columns", method, _args(call, before, flow))


def _args(call: cst.Call, before: int, flow: Flow) -> tuple[str, ...]:
    return tuple((f"{a.keyword.value}=" if a.keyword else a.star)
                 + _text(a.value, before, flow) for a in call.args)


def _text(expr: cst.BaseExpression, before: int, flow: Flow, depth: int = 0) -> str:
    """A value as the code gives it: a string's text, a name followed to its value."""
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return repr(value if isinstance(value, str) else value.decode(errors="replace"))
    if isinstance(expr, cst.List | cst.Tuple):
        inner = ", ".join(_text(e.value, before, flow, depth) for e in expr.elements)
        return f"[{inner}]"
    if isinstance(expr, cst.Name) and depth < 2:
        assigned = flow.value(expr.value, before)
        if assigned is not None:
            return _text(assigned[1], assigned[0], flow, depth + 1)
    return code_text(expr)


def _cancelled(steps: list[WrittenStep]) -> list[WrittenStep]:
    """A column added and dropped again (`withColumn("rn", ...)` ... `drop("rn")`, to pick a
    row) writes nothing: both steps go."""
    kept = list(steps)
    for i, step in enumerate(steps):
        if step.method != "withColumn" or not step.args:
            continue
        drop = next((s for s in steps[i + 1:] if s.method == "drop" and s.args == step.args),
                    None)
        if drop is not None and step in kept and drop in kept:
            kept.remove(step)
            kept.remove(drop)
    return kept


def _fields_set(name: str, before: int, flow: Flow) -> list[WrittenStep]:
    """Fields set on each record of `name` (`for r in records: r["k"] = v`) before it is
    written: columns of what is written."""
    found: list[WrittenStep] = []
    for index, loop in flow.loops.get(name, ()):
        if index >= before or not isinstance(loop.target, cst.Name):
            continue
        item = loop.target.value
        for n in _walk(loop.body):
            if not isinstance(n, cst.Assign):
                continue
            for target in n.targets:
                t = target.target
                if (isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name)
                        and t.value.value == item and t.slice
                        and isinstance(t.slice[0].slice, cst.Index)):
                    key = _text(t.slice[0].slice.value, flow.at(n), flow)
                    found.append(WrittenStep("columns", "set item", (key,)))
    return found
