"""The query a branch streamlint did not follow would run instead, rebuilt from its `Fork`.

At a run-time choice the interpreter follows one branch and keeps the other's value
(`values.Fork`). When the query starts, the code after the choice has been applied to the
followed value only; the other branch's query is that same code applied to the other value.
That is rebuilt here where it can be without running the code again:

- the branches each started a query: the other's is the query;
- the choice was of a writer (`writer = writer.trigger(...) if ... else ...`): the other
  writer, with the options added after the choice appended and the fields set after it taken
  from the followed writer (`Writer.history` says which);
- the choice was of a DataFrame: the other DataFrame, then the operators applied after the
  choice, when none of those keeps state (a stateful operator records what its input was
  computed from, which was the followed branch's).

Anything else (a grouping, a choice inside a join's other side, a value that is not the same
kind of object in both branches) is not rebuilt: the note then stands for it, as before.
Later choices are rebuilt on top of the other branch, so combinations are compared too, up to
`MAX_ALTERNATIVES` queries for one query (beyond that, notes again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamlint.extract.values import Fork, Plan, Writer
from streamlint.model import STATEFUL_KINDS, Alternative, Query
from streamlint.records import replace

# How many other-branch queries one query may carry, all combinations together.
MAX_ALTERNATIVES = 32
# What a writer's method sets, besides options (appended) and its plan.
WRITER_FIELDS = ("format", "output_mode", "output_mode_loc", "trigger", "trigger_loc",
                 "query_name", "partition_by", "foreach", "checkpoint_loc")

Build = Callable[[Writer, list[int], int], Query]


def alternatives(writer: Writer, build: Build, budget: list[int], shared: int = 0
                 ) -> tuple[Alternative, ...]:
    """One `Alternative` per choice behind the writer's notes. `build(writer, budget, shared)`
    makes a query of a rebuilt writer, with its own alternatives; `budget` is what is left to
    build; the first `shared` choices are those of the query this one is the alternative of
    (compared there: each combination of branches is built once)."""
    forks = writer.plan.forks
    found: list[Alternative] = [Alternative(f.note[0], f.note[1], None, covered=True)
                                for f in forks[:shared]]
    others: list[Writer | None] = []
    for index in range(shared, len(forks)):
        # Each choice of this query first, then what is left for their own choices.
        other = other_writer(writer, index) if budget[0] > 0 else None
        budget[0] -= other is not None
        others.append(other)
    for index, other in enumerate(others, start=shared):
        fork = forks[index]
        query = None if other is None else build(other, budget, _common(forks[:index],
                                                                      other.plan.forks))
        found.append(Alternative(fork.note[0], fork.note[1], query))
    return tuple(found)


def _common(first: tuple[Fork, ...], second: tuple[Fork, ...]) -> int:
    """How many choices two values went through together before they parted."""
    count = 0
    while count < min(len(first), len(second)) and first[count] == second[count]:
        count += 1
    return count


def other_writer(writer: Writer, index: int) -> Writer | None:
    """The writer the query would start with had choice `index` of its forks gone the other
    way; None where that cannot be rebuilt."""
    fork = writer.plan.forks[index]
    if fork.chosen is None:
        return fork.other if isinstance(fork.other, Writer) else None
    return rebased(writer, fork)


def rebased(value: Any, fork: Fork) -> Any:
    """`value`, made from the followed branch's value of `fork`, made from the other's."""
    chosen, other = fork.chosen, fork.other
    if isinstance(value, Writer) and isinstance(chosen, Writer) and isinstance(other, Writer):
        return _writer_on(value, chosen, other, fork)
    if isinstance(value, Writer) and isinstance(chosen, Plan) and isinstance(other, Plan):
        plan = _plan_on(value.plan, chosen, other, fork)
        return None if plan is None else replace(value, plan=plan)
    if isinstance(value, Plan) and isinstance(chosen, Plan) and isinstance(other, Plan):
        return _plan_on(value, chosen, other, fork)
    return None


def _starts_with(longer: tuple, shorter: tuple) -> bool:
    return longer[: len(shorter)] == shorter


def _writer_on(writer: Writer, chosen: Writer, other: Writer, fork: Fork) -> Writer | None:
    if not (_starts_with(writer.history, chosen.history)
            and _starts_with(writer.options, chosen.options)):
        return None
    plan = _plan_on(writer.plan, chosen.plan, other.plan, fork)
    if plan is None:
        return None
    again = set(writer.history[len(chosen.history):])
    fields = {name: getattr(writer if name in again else other, name) for name in WRITER_FIELDS}
    return replace(other, plan=plan, options=other.options + writer.options[len(chosen.options):],
                   history=other.history + writer.history[len(chosen.history):], **fields)


def _plan_on(plan: Plan, chosen: Plan, other: Plan, fork: Fork) -> Plan | None:
    at = len(chosen.forks)
    if not (_starts_with(plan.sources, chosen.sources)
            and _starts_with(plan.operators, chosen.operators)
            and _starts_with(plan.unresolved, chosen.unresolved)
            and _starts_with(plan.forks, chosen.forks) and plan.forks[at:at + 1] == (fork,)):
        return None
    after = plan.operators[len(chosen.operators):]
    if any(op.kind in STATEFUL_KINDS for op in after):
        return None
    later = []
    for each in plan.forks[at + 1:]:
        # A later choice, on top of the other branch: its two values rebuilt the same way.
        first = None if each.chosen is None else rebased(each.chosen, fork)
        second = rebased(each.other, fork)
        if second is not None and (first is not None or each.chosen is None):
            later.append(Fork(each.note, first, second))
    return Plan(other.sources + plan.sources[len(chosen.sources):], other.operators + after,
                plan.streaming, other.columns if not after else None, other.definitions,
                other.unresolved + plan.unresolved[len(chosen.unresolved):],
                other.forks + tuple(later))
