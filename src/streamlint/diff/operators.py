"""Compare two versions of one stateful operator, by structure: its keys, what it buffers,
and how the columns it reads were computed upstream.

Each function reports through `add(kind, subject, old, new, old_loc, new_loc, **facts)`
(the differ's), so the verdicts stay in the rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from streamlint.diff.render import (
    Code,
    agg_text,
    aggs_text,
    code,
    definitions_text,
    exprs_text,
    names_text,
)
from streamlint.model import (
    AggCall,
    Aggregation,
    ArbitraryState,
    Deduplication,
    StateVariable,
    StreamJoin,
    show,
)
from streamlint.model.expr import (
    WINDOW_FUNCTIONS,
    Binary,
    Call,
    Cast,
    Column,
    Definition,
    Expr,
    Star,
    Unresolved,
    conjuncts,
    refs,
    render,
    unqualified,
)
from streamlint.model.schema_text import schema_fields

Add = Callable[..., None]


def redefined(old: tuple[Definition, ...], new: tuple[Definition, ...],
              keys: frozenset[str] = frozenset()) -> list[tuple[Definition, Definition]]:
    """Input columns computed by a different expression in each version. A key (one of
    `keys`, the same in both versions) with no definition on one side is the input column
    itself, as read: `merchant_id` replaced upstream by `substring(merchant_id, 1, 6) AS
    merchant_id` is a key computed differently."""
    before = {d.name: d for d in old}
    after = {d.name: d for d in new}
    # A key whose definition one side keeps under another name (renamed upstream: the
    # operator reads `uid`, the key resolves to `user_id`) is the same computation.
    moved = ({n for n in keys & before.keys() - after.keys()
              if any(d.expr == before[n].expr for d in new)}
             | {n for n in keys & after.keys() - before.keys()
                if any(d.expr == after[n].expr for d in old)})
    names = (before.keys() & after.keys()) | (keys & (before.keys() | after.keys())) - moved
    pairs = [(before.get(n, Definition(n, Column(n))), after.get(n, Definition(n, Column(n))))
             for n in sorted(names)]
    return [(b, a) for b, a in pairs if b.expr != a.expr]


def key_refs(keys: tuple[Expr, ...]) -> frozenset[str]:
    return frozenset().union(*(refs(k) for k in keys)) if keys else frozenset()


# -- aggregation ----------------------------------------------------------------------------


def windows_only(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    """Same keys but for windows over the same time column whose durations differ."""
    if len(a) != len(b):
        return False
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return bool(differing) and all(
        isinstance(x, Call) and isinstance(y, Call) and x.function in WINDOW_FUNCTIONS
        and x.function == y.function and x.args[:1] == y.args[:1]
        for x, y in differing)


def counted(keys: tuple[Expr, ...] | None) -> bool:
    """Whether the number of keys is known: no `*cols` or `*` stands for several."""
    return keys is not None and not any(
        isinstance(k, Star) or isinstance(k, Unresolved) and k.code.startswith("*")
        for k in keys)


def cast_type(expr: Expr) -> str | None:
    """The type a column's definition states outright (a cast, a parsed JSON field)."""
    return expr.to if isinstance(expr, Cast) else None


def reordered(old: tuple[AggCall, ...], new: tuple[AggCall, ...]) -> bool:
    """The same aggregate functions over the same inputs, in another order (a swap)."""
    def calls(aggs: tuple[AggCall, ...]) -> list[tuple[str, bool, tuple[Expr, ...]]]:
        return [(x.function, x.distinct, x.args) for x in aggs]

    before, after = calls(old), calls(new)
    return before != after and Counter(before) == Counter(after)


def aggregation(add: Add, a: Aggregation, b: Aggregation) -> None:
    if a.method != b.method:
        add("agg.method", "the grouping method", a.method, b.method, a.loc, b.loc)
    if a.keys != b.keys:
        kind = "agg.window" if windows_only(a.keys, b.keys) else "agg.keys"
        subject = "the window" if kind == "agg.window" else "the grouping keys"
        # Another number of keys is another key schema, whatever the unknown keys are.
        add(kind, subject, exprs_text(a.keys), exprs_text(b.keys), a.loc, b.loc,
            structural=counted(a.keys) and counted(b.keys) and len(a.keys) != len(b.keys))
    old, new = a.aggregates, b.aggregates
    if len(old) != len(new):
        add("agg.aggregates", "the aggregate functions", aggs_text(old), aggs_text(new),
            a.loc, b.loc, structural=True)
    elif reordered(old, new):
        # One change, one finding: the state keeps one buffer per aggregate by position, so
        # the old buffers are read as other aggregates (or refused for their types).
        add("agg.aggregates", "the order of the aggregate functions", aggs_text(old),
            aggs_text(new), a.loc, b.loc, structural=True)
    else:
        for x, y in zip(old, new, strict=True):
            same_function = (x.function, x.distinct) == (y.function, y.distinct)
            if not same_function and x.args == y.args:
                add("agg.function", f"the aggregate `{agg_text(x)}`", agg_text(x), agg_text(y),
                    a.loc, b.loc)
            elif same_function and x.args != y.args:
                subject = f"the input of `{x.function}`" if x.function else "an aggregate"
                add("agg.input", subject, agg_text(x), agg_text(y),
                    a.loc, b.loc)
            elif not same_function:
                add("agg.aggregates", "the aggregate functions", agg_text(x), agg_text(y),
                    a.loc, b.loc)
            elif x.alias != y.alias:
                add("agg.alias", f"the name of `{x.function}`", x.alias, y.alias, a.loc, b.loc)
    if a.keys != b.keys:
        return
    keys = key_refs(a.keys)
    for before, after in redefined(a.inputs, b.inputs, keys):
        old_text, new_text = definitions_text((before,)), definitions_text((after,))
        if before.name in keys:  # a grouping key computed differently is another key
            add("agg.keys", f"how the grouping key `{before.name}` is computed", old_text,
                new_text, a.loc, b.loc)
            continue
        old_type, new_type = cast_type(before.expr), cast_type(after.expr)
        typed = "true" if old_type and new_type and old_type != new_type else "false"
        add("agg.input_type", f"how the aggregated column `{before.name}` is computed",
            old_text, new_text, a.loc, b.loc, typed=typed)


# -- deduplication --------------------------------------------------------------------------


def deduplication(add: Add, a: Deduplication, b: Deduplication) -> None:
    if a.within_watermark != b.within_watermark:
        add("dedup.kind", "the deduplication operator", a.method, b.method, a.loc, b.loc)
    elif a.keys != b.keys:
        reordered = a.keys is not None and b.keys is not None and \
            sorted(map(str, a.keys)) == sorted(map(str, b.keys))
        add("dedup.keys", "the deduplication keys", names_text(a.keys), names_text(b.keys),
            a.loc, b.loc, reordered="true" if reordered else "false")
    changed = redefined(a.inputs, b.inputs, frozenset(a.keys or ()) if a.keys == b.keys
                        else frozenset())
    if changed and a.keys == b.keys:
        # Same key names, other values: new rows are compared with keys kept the old way.
        add("dedup.keys", "how the deduplication keys are computed",
            definitions_text(tuple(x for x, _ in changed)),
            definitions_text(tuple(y for _, y in changed)), a.loc, b.loc, reordered="false")


# -- stream-stream joins --------------------------------------------------------------------


def _ordered(left: Expr, right: Expr) -> tuple[Expr, Expr]:
    return (left, right) if render(left) <= render(right) else (right, left)


def _sides_ok(left: Expr, right: Expr, op: StreamJoin) -> bool:
    """An `=` between the two inputs (not two columns of one side) is an equi-join key. A
    side is only taken as known when its columns are and the other's do not also match."""
    a, b = refs(left), refs(right)
    if not a or not b:
        return False
    if op.left_columns is None or op.right_columns is None:
        return True
    lcols, rcols = set(op.left_columns), set(op.right_columns)

    def side(names: frozenset[str]) -> str:
        in_left, in_right = names <= lcols, names <= rcols
        return "left" if in_left and not in_right else "right" if in_right and not in_left else "?"

    return side(a) == "?" or side(a) != side(b)


def _is_key(part: Expr, op: StreamJoin) -> bool:
    return isinstance(part, Binary) and part.op in ("=", "<=>") and _sides_ok(
        part.left, part.right, op)


def equi_keys(op: StreamJoin) -> frozenset[tuple[Expr, Expr]]:
    """The join's state key, as expression pairs in one order: `on=[names]` and the `=`
    conjuncts of its condition between the two sides, qualifiers dropped (a DataFrame alias
    only says which side a column is on)."""
    pairs = {(Column(name), Column(name)) for name in op.keys}
    for part in conjuncts(op.condition):
        if isinstance(part, Binary) and _is_key(part, op):
            pairs.add(_ordered(unqualified(part.left), unqualified(part.right)))
    return frozenset(pairs)


def _pairs_text(pairs: frozenset[tuple[Expr, Expr]]) -> Code:
    ordered = sorted(pairs, key=lambda p: (render(p[0]), render(p[1])))
    return code(", ".join(render(x) if x == y else f"{render(x)} = {render(y)}"
                          for x, y in ordered) or "(none)", *(e for p in ordered for e in p))


def residue(op: StreamJoin) -> tuple[Expr, ...]:
    """The condition's other conjuncts (time ranges, filters), as written."""
    return tuple(p for p in conjuncts(op.condition) if not _is_key(p, op))


def condition_key(op: StreamJoin) -> list[Expr]:
    """The non-key conditions up to spelling: in any order, `a != b` as `b != a`, alias
    qualifiers dropped."""
    parts: list[Expr] = []
    for part in residue(op):
        part = unqualified(part)
        if isinstance(part, Binary) and part.op == "!=":
            part = Binary(part.op, *_ordered(part.left, part.right))
        parts.append(part)
    return sorted(parts, key=render)


def join(add: Add, a: StreamJoin, b: StreamJoin) -> None:
    if a.how != b.how:
        inner = "true" if "inner" in (a.how, b.how) else "false"
        add("join.type", "the join type", a.how, b.how, a.loc, b.loc,
            old_how=str(a.how), new_how=str(b.how), inner=inner)
    old_keys, new_keys = equi_keys(a), equi_keys(b)
    if old_keys != new_keys:
        add("join.keys", "the equi-join keys", _pairs_text(old_keys), _pairs_text(new_keys),
            a.loc, b.loc)
    elif condition_key(a) != condition_key(b):
        add("join.condition", "the join condition", _conjuncts_text(residue(a)),
            _conjuncts_text(residue(b)), a.loc, b.loc)
    for side, before, after in (("left", a.left_columns, b.left_columns),
                                ("right", a.right_columns, b.right_columns)):
        if before is not None and after is not None and before != after:
            add("join.state_schema", f"the columns the join buffers from its {side} input",
                names_text(before), names_text(after), a.loc, b.loc, side=side)
    changed = redefined(a.inputs, b.inputs)
    if changed and old_keys == new_keys:
        add("join.input", "how the join's input columns are computed",
            definitions_text(tuple(x for x, _ in changed)),
            definitions_text(tuple(y for _, y in changed)), a.loc, b.loc)


def _conjuncts_text(parts: tuple[Expr, ...]) -> Code:
    return code(" AND ".join(render(p) for p in parts) or "(none)", *parts)


# -- arbitrary state ------------------------------------------------------------------------


def variables(schema: Any) -> Any:
    """transformWithState keeps each state variable in its own column family, by name: their
    order in `init` does not matter."""
    return tuple(sorted(schema, key=repr)) if isinstance(schema, tuple) else schema


def arbitrary_state(add: Add, a: ArbitraryState, b: ArbitraryState, encoding: str) -> None:
    if a.api != b.api:
        add("state.api", "the stateful API", a.api, b.api, a.loc, b.loc)
        return
    if a.keys != b.keys:
        add("state.keys", "the grouping keys", exprs_text(a.keys), exprs_text(b.keys), a.loc,
            b.loc)
    else:
        keys = key_refs(a.keys)
        for before, after in redefined(a.inputs, b.inputs):
            if before.name in keys:  # the same key name holding other values: other groups
                add("state.keys", f"how the grouping key `{before.name}` is computed",
                    definitions_text((before,)), definitions_text((after,)), a.loc, b.loc,
                    computed="true")
    if variables(a.state_schema) != variables(b.state_schema):
        add("state.schema", "the state schema", a.state_schema, b.state_schema, a.loc,
            b.loc, api=a.api, encoding=encoding, evolution=evolution(a.variables, b.variables))
    if a.timeout != b.timeout:
        add("state.timeout", "the timeout", a.timeout, b.timeout, a.loc, b.loc, api=a.api)
    if a.output_mode != b.output_mode:
        add("state.output_mode", "the operator's output mode", a.output_mode,
            b.output_mode, a.loc, b.loc, api=a.api)
    if a.output_schema != b.output_schema:
        add("state.output_schema", "the output schema", a.output_schema,
            b.output_schema, a.loc, b.loc)
    if a.function != b.function:
        add("state.function", "the state function", a.function, b.function, a.loc,
            b.loc)


# How a processor's state may change, worst first: what Spark refuses whatever the encoding,
# what only Avro encoding lets evolve, and what leaves the stored schema alone.
_EVOLUTION_ORDER = ("variable_type", "narrowed", "other", "ttl_added", "ttl_removed",
                    "variables", "fields", "ttl_duration")
# Widening casts of a state value field (Spark's upcast on Avro-encoded state).
_WIDER = {"tinyint": 0, "smallint": 1, "int": 2, "bigint": 3}


def evolution(old: tuple[StateVariable, ...] | None, new: tuple[StateVariable, ...] | None
              ) -> str:
    """How a transformWithState processor's declared state changed (`core.STATE_EVOLUTIONS`):
    the worst of its variables' changes."""
    if old is None or new is None:
        return "other"
    before = {show(v.name): v for v in old}
    after = {show(v.name): v for v in new}
    if len(before) != len(old) or len(after) != len(new):
        return "other"  # a name declared twice, or unresolved names: not judged
    kinds = {"variables"} if before.keys() != after.keys() else set()
    for name in before.keys() & after.keys():
        a, b = before[name], after[name]
        if a.getter != b.getter:
            kinds.add("variable_type")
        elif a.schemas != b.schemas:
            kinds.add("other" if a.ttl != b.ttl else _fields(a, b))
        elif a.ttl != b.ttl:
            if not (_known_ttl(a.ttl) and _known_ttl(b.ttl)):
                kinds.add("other")  # a TTL known only at run time may be none at all
            else:
                kinds.add("ttl_added" if a.ttl is None else "ttl_removed" if b.ttl is None
                          else "ttl_duration")
    if "variables" in kinds and len(kinds) > 1:
        # Variables added or removed alone keep the others' state (AS15); beside another
        # change of a kept variable, the pair is not judged as either.
        kinds = (kinds - {"variables"}) | {"other"}
    return min(kinds, key=_EVOLUTION_ORDER.index) if kinds else "other"


def _known_ttl(ttl: object) -> bool:
    """No TTL, or a duration in milliseconds known statically."""
    return ttl is None or (isinstance(ttl, int) and not isinstance(ttl, bool))


def _fields(a: StateVariable, b: StateVariable) -> str:
    """A value schema's fields added, removed, reordered or widened ("fields"), a field's type
    narrowed or replaced ("narrowed"), or a map's key schema changed ("other")."""
    if a.schemas[:-1] != b.schemas[:-1]:
        return "other"  # a map's user key is part of the state key
    old, new = a.schemas[-1], b.schemas[-1]
    if not isinstance(old, str) or not isinstance(new, str):
        return "other"
    before = {name: type_text for name, type_text in schema_fields(old) if type_text}
    after = {name: type_text for name, type_text in schema_fields(new) if type_text}
    for name in after.keys() - before.keys():
        if "not null" in after[name].lower():
            return "narrowed"  # an added field must be nullable (old rows have none)
    for name in before.keys() & after.keys():
        x, y = before[name], after[name]
        if x == y or (x, y) == ("float", "double"):
            continue
        if x in _WIDER and y in _WIDER and _WIDER[x] < _WIDER[y]:
            continue
        return "narrowed"
    return "fields"
