"""Calls the run makes one of: a function chosen at run time (`Alternatives`), or a function
given a value a run-time condition chooses (`options = build(cfg) if c else {}` passed on).
Each is run as a branch of an `if` is: the queries they start and the values they return are
chosen as the branches' are (extract/symbolic.py `choose`: the first followed, the other a
`Fork` the diff compares with its old self), never one value standing for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import heap
from streamlint.extract.chosen_dicts import data_choice
from streamlint.extract.symbolic import started_in_branches

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

Call = tuple[Any, list[Any], dict[str, Any]]


def per_choice(interp: Interpreter, func: Any, args: list[Any], kwargs: dict[str, Any]
               ) -> tuple[list[Call], str, Any] | None:
    """A call of `func` given a dict a run-time condition chose (`data_choice`): one call
    per alternative, the condition and where it is; None for any other call."""
    for i, arg in enumerate(args):
        found = data_choice(arg)
        if found is not None:
            first, second, condition, loc = found
            return ([(func, [*args[:i], value, *args[i + 1:]], dict(kwargs))
                     for value in (first, second)], condition, loc)
    for key, arg in kwargs.items():
        found = data_choice(arg)
        if found is not None:
            first, second, condition, loc = found
            return ([(func, list(args), {**kwargs, key: value}) for value in (first, second)],
                    condition, loc)
    return None


def run_each(interp: Interpreter, calls: list[Call], condition: str, loc: Any,
             node: cst.Call) -> Any:
    """Calls of which the run makes one (`condition` decides), each run as a branch."""
    values: list[Any] = []
    started: list[list[Any]] = []
    heap_mark = heap.watch(interp)
    writes: list[heap.Writes] = []
    interp.alternatives_depth += 1
    try:
        for func, args, kwargs in calls:
            mark = len(interp.effects.queries)
            interp.effects.uncertain += 1
            try:
                values.append(interp.call(func, args, kwargs, node))
            finally:
                interp.effects.uncertain -= 1
                writes.append(heap.undo(interp, heap_mark))
            started.append(interp.effects.queries[mark:])
            del interp.effects.queries[mark:]
    finally:
        interp.alternatives_depth -= 1
    heap.merge(interp, writes, condition, loc)
    kept = started_in_branches(started, condition, loc)
    for writer in (w for writers in started for w in writers):
        interp.effects.set_aside(writer)
    interp.effects.queries.extend(kept)
    return interp.merge_choices(values, condition, loc)
