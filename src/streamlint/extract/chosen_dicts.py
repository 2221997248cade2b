"""Dicts a run-time condition chooses between (`build(cfg) if c else {}`): the unknown that
stands for the choice, with both dicts, so a function given it runs once with each
(extract/choices.py). Kept by the unknown's id, the unknown held here so the id names it while
it is; emptied when it grows large (the choice then reads as the unknown it is)."""

from __future__ import annotations

from typing import Any

from streamlint.model import Loc, Unknown

_CHOICES: dict[int, tuple[Unknown, dict, dict, str, Loc]] = {}


def remember(value: Unknown, first: Any, second: Any, condition: str, loc: Loc) -> Unknown:
    """`value`, the unknown a run-time choice between `first` and `second` is; kept where
    both are dicts."""
    if isinstance(first, dict) and isinstance(second, dict):
        if len(_CHOICES) > 20_000:
            _CHOICES.clear()
        _CHOICES[id(value)] = (value, first, second, condition, loc)
    return value


def data_choice(value: Any) -> tuple[dict, dict, str, Loc] | None:
    """The two dicts a run-time condition chooses between, its condition and where, where
    `value` is such a choice; None otherwise."""
    found = _CHOICES.get(id(value)) if isinstance(value, Unknown) else None
    if found is None or found[0] is not value:
        return None
    return found[1], found[2], found[3], found[4]
