"""The branches streamlint did not follow, compared as queries of their own.

A note about a run-time condition names the other branch by a digest of its shape, so any
change there, or upstream of the choice, changes the note. Where both versions carry the
query that branch would run (`model.Alternative`), the two are compared instead with the same
rules as the query itself, and what differs is reported as being "in the other branch of" the
condition. Where either cannot be compared (not rebuilt, the notes do not pair one to one, the
condition's text changed), the changed note stays a UN01 finding, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from streamlint.core import Change
from streamlint.model import Alternative, Loc, Query
from streamlint.records import replace

# A note's digest of the branch not followed (extract/symbolic.py).
_DIGEST = re.compile(r" #[0-9a-f]{8}\b")
_CONDITION = re.compile(r"run-time condition (`.*`) \(")

Compare = Callable[[Query, Query], list[Change]]


def note_key(text: str) -> str:
    """A note without the digest of the branch it does not follow."""
    return _DIGEST.sub("", text)


def paired(old: Query, new: Query) -> list[tuple[str, str, Loc]]:
    """The notes of the two versions that are the same choice (the same text, or the same but
    for the digest), one to one, each with the new version's place: old and new text."""
    old_texts = [text for text, _ in old.unresolved]
    new_texts = [text for text, _ in new.unresolved]
    out = []
    for key in {note_key(t) for t in new_texts} & {note_key(t) for t in old_texts}:
        olds = [t for t in old_texts if note_key(t) == key]
        news = [(t, loc) for t, loc in new.unresolved if note_key(t) == key]
        if len(olds) == 1 and len(news) == 1 and _CONDITION.search(key):
            out.append((olds[0], news[0][0], news[0][1]))
    return out


def alternative(query: Query, note: str) -> Alternative | None:
    """The one alternative a query keeps for a note (None: none, or several that differ)."""
    found = [a for a in query.alternatives if a.note == note]
    if not found or any(a != found[0] for a in found[1:]):
        return None
    return found[0]


def comparable(old: Query, new: Query, pair: tuple[str, str, Loc]
               ) -> tuple[Query, Query] | None | bool:
    """The two queries of the other branch of a paired note; True where the query these are
    alternatives of compares that choice itself (`Alternative.covered`); None where the two
    versions cannot be compared."""
    before, after = alternative(old, pair[0]), alternative(new, pair[1])
    if before is None or after is None:
        return None
    if before.covered and after.covered:
        return True
    if before.query is None or after.query is None or before.covered or after.covered:
        return None
    return before.query, after.query


def other_branches(old: Query, new: Query
                   ) -> tuple[set[str], list[tuple[str, Loc, Query, Query]]]:
    """The notes whose choice is compared without them (in the query these two are the
    other branch of, or here), and the other branches to compare here: the new note, its
    place, and that branch's old and new query."""
    compared: set[str] = set()
    branches = []
    for pair in paired(old, new):
        found = comparable(old, new, pair)
        if found is not None:
            compared.update(pair[:2])
        if isinstance(found, tuple):
            branches.append((pair[1], pair[2], *found))
    return compared, branches


def branch_changes(pairs: list[tuple[str, Loc, Query, Query]], compare: Compare,
                   known: list[Change], query: str) -> list[Change]:
    """What differs between the versions of each other branch (its note and place, old and
    new query), said of that branch, and not already among the `known` changes of the query
    itself (or of another branch)."""
    seen = {_key(c) for c in known}
    out: list[Change] = []
    for note, loc, before, after in pairs:
        match = _CONDITION.search(note)
        where = (f"in the other branch of {match.group(1) if match else 'a run-time condition'}"
                 f" (line {loc.line})")
        for change in compare(before, after):
            if _key(change) in seen:
                continue
            seen.add(_key(change))
            inner = change.facts.get("branch")
            out.append(replace(change, query=query, facts={
                **change.facts, "branch": f"{where}; {inner}" if inner else where}))
    return out


def _key(change: Change) -> tuple:
    facts = tuple(sorted((k, v) for k, v in change.facts.items() if k != "branch"))
    return (change.kind, change.subject, repr(change.old), repr(change.new), change.old_loc,
            change.new_loc, facts)

