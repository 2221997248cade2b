"""Pair each old query with the new query that will restart from the same place."""

from __future__ import annotations

from collections.abc import Callable

from streamlint.model import Query
from streamlint.model.identity import KINDS, key_of


def _keys() -> list[Callable[[Query], object]]:
    # The checkpoint is what a restart really resumes; the rest are fallbacks for code that
    # moved its checkpoint (a finding of its own) or left it unresolved (model/identity.py).
    return [lambda q, kind=kind: key_of(q, kind) for kind in KINDS]


def match_queries(
    old: tuple[Query, ...], new: tuple[Query, ...], positional: bool = True
) -> list[tuple[Query | None, Query | None]]:
    """Pairs in new-file order; a query with no partner is paired with None.

    `positional=False` pairs by the keys only: across files (`streamlint.workflow.crossfile`) a
    query's place in its file says nothing about which query it was.
    """
    pairs: dict[int, int] = {}  # new index -> old index
    free_old = set(range(len(old)))
    free_new = set(range(len(new)))
    for key in _keys():
        for j in sorted(free_new):
            value = key(new[j])
            if value is None or value == (None, None):
                continue
            candidates = [i for i in sorted(free_old) if key(old[i]) == value]
            if len(candidates) == 1 or (candidates and sum(
                    1 for k in free_new if key(new[k]) == value) == 1):
                pairs[j] = candidates[0]
                free_old.discard(candidates[0])
                free_new.discard(j)
    for j, i in zip(sorted(free_new) if positional else (), sorted(free_old), strict=False):
        pairs[j] = i
    matched_old = set(pairs.values())
    result: list[tuple[Query | None, Query | None]] = [
        (old[pairs[j]] if j in pairs else None, new[j]) for j in range(len(new))
    ]
    result.extend((old[i], None) for i in range(len(old)) if i not in matched_old)
    return result
