"""Writes that outlive a branch's names: attributes, dict items, globals (the "heap").

The branches of a run-time `if`, and the options of a function chosen at run time, all run
from the same state. Each one's heap writes are undone before the next runs, and each place
written ends up holding a choice among what the branches left there (symbolic.choose), as a
name does. Otherwise the last branch's write won silently (`self.df = ...` in both branches
of an `if`: the first one's change read compatible).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamlint.extract.symbolic import ABSENT, choose
from streamlint.extract.values import Box, Items

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter
    from streamlint.model import Loc

Place = tuple[int, Any]  # id(owner), key
Writes = dict[Place, tuple[Any, Any, Any, Any]]  # owner, key, value before, value left


def watch(interp: Interpreter) -> int:
    """Start logging heap writes (for branches about to run); where the log stands now."""
    interp.heap_watch += 1
    return len(interp.effects.heap_log)


def undo(interp: Interpreter, mark: int) -> Writes:
    """What one branch wrote since `mark`, undone: each place with its value before the
    branch and the value the branch left."""
    log = interp.effects.heap_log
    written: dict[Place, tuple[Any, Any, Any]] = {}
    for owner, key, old in log[mark:]:
        written.setdefault((id(owner), key), (owner, key, old))
    found = {place: (owner, key, old, owner.get(key, ABSENT))
             for place, (owner, key, old) in written.items()}
    for owner, key, old in reversed(log[mark:]):
        if old is ABSENT:
            owner.pop(key, None)
        else:
            owner[key] = old
    del log[mark:]
    # A guard clause met inside the branch now sees the merged writes instead.
    interp.guard_writes = [min(start, mark) for start in interp.guard_writes]
    return found


def merge(interp: Interpreter, branches: list[Writes], condition: str, loc: Loc) -> None:
    """Each place any branch wrote holds a choice among what each branch left there (the
    value before, for a branch that did not write it)."""
    interp.heap_watch -= 1
    places: dict[Place, tuple[Any, Any, Any]] = {}
    for writes in branches:
        for place, (owner, key, old, _) in writes.items():
            places.setdefault(place, (owner, key, old))
    for place, (owner, key, old) in places.items():
        values = [w[place][3] if place in w else old for w in branches]
        values = [v for v in values if v is not ABSENT]
        if not values:
            continue
        merged = values[0]
        for other in values[1:]:
            if other is not merged and other != merged:
                merged = choose(merged, other, condition, loc)
        if isinstance(owner, Box) and isinstance(merged, tuple):
            # The branches' versions of one list, chosen item by item: still that list, so a
            # change made after the branches reaches every holder.
            merged = Items(merged)
            merged.box = owner
        interp.heap_write(owner, key, old)
        owner[key] = merged
