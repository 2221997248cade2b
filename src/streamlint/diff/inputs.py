"""How two versions of a query take restart-relevant values from outside their code.

`model.Input`s (extract/inputs.py) say which facts of a query (its checkpoint, a source's
topic or path, a grouping key, a window) come from a deployment's default or from a file
streamlint could not read. Compared here:

- the same variable, widget or argument with the same default on both sides: no change;
- its default changed: "input.default", naming it and both defaults;
- the fact moved to or from such a source: "input.moved";
- a file that could not be read: "input.unread", on every comparison, since the same code
  reading the same key is the same value only when the file is.
"""

from __future__ import annotations

from collections.abc import Iterator

from streamlint.model import Input, Loc, Query, show

# What a change says: kind, subject, old value, new value, old place, new place, facts.
Found = tuple[str, str, object, object, Loc | None, Loc | None, dict[str, str]]

# The changes a fact's value makes, by `Input.about`: where an overridden default changed or
# moved, these are asked about rather than judged (diff/compare.py).
CHANGES_OF = {
    "checkpoint": frozenset({"query.checkpoint"}),
    "source": frozenset({"source.identity"}),
    # Only the window's own change: grouping keys changed beside it are judged as they are.
    "window": frozenset({"agg.window"}),
    "grouping": frozenset({"agg.keys", "state.keys"}),
    "dedup": frozenset({"dedup.keys"}),
    "join": frozenset({"join.keys", "join.condition"}),
}


def overridden(found: Found) -> set[tuple[Loc, str]]:
    """Where an input change leaves a deployment to decide a value: (place, change kind)."""
    kind, _, _, _, old_loc, new_loc, facts = found
    if kind == "input.unread":
        return set()
    return {(loc, change) for loc in (old_loc, new_loc) if loc is not None
            for change in CHANGES_OF.get(facts.get("about", ""), ())}


def input_changes(old: Query, new: Query) -> Iterator[Found]:
    yield from _overrides(old, new)
    yield from _unread(old, new)


def _overrides(old: Query, new: Query) -> Iterator[Found]:
    olds = _by_fact(old.inputs)
    news = _by_fact(new.inputs)
    for fact in sorted(set(olds) | set(news)):
        before, after = olds.get(fact, {}), news.get(fact, {})
        for origin in sorted(set(before) & set(after)):
            a, b = before[origin], after[origin]
            if a.default != b.default:
                yield ("input.default", f"the default of {origin}, which sets {fact},",
                       a.default, b.default, a.loc, b.loc, {"about": a.about})
        gone = [before[o] for o in sorted(set(before) - set(after))]
        came = [after[o] for o in sorted(set(after) - set(before))]
        if gone and came:
            yield ("input.moved", f"{fact} is now read from {_named(came)} instead of "
                   f"{_named(gone)}", _defaults(gone), _defaults(came), gone[0].loc,
                   came[0].loc, {"direction": "between", "about": came[0].about})
        elif came:
            yield ("input.moved", f"{fact} is now read from {_named(came)}", None,
                   _defaults(came), None, came[0].loc, {"direction": "to",
                                                        "about": came[0].about})
        elif gone:
            yield ("input.moved", f"{fact} is no longer read from {_named(gone)}",
                   _defaults(gone), None, gone[0].loc, None, {"direction": "from",
                                                              "about": gone[0].about})


def _unread(old: Query, new: Query) -> Iterator[Found]:
    olds = {(i.fact, i.origin): i for i in old.inputs if i.kind == "unread"}
    news = {(i.fact, i.origin): i for i in new.inputs if i.kind == "unread"}
    for key in sorted(set(olds) | set(news)):
        a, b = olds.get(key), news.get(key)
        fact, origin = key
        yield ("input.unread", f"{fact} comes from {origin}", origin if a else None,
               origin if b else None, a.loc if a else None, b.loc if b else None,
               {"about": (a or b).about})  # type: ignore[union-attr]


def _by_fact(inputs: tuple[Input, ...]) -> dict[str, dict[str, Input]]:
    found: dict[str, dict[str, Input]] = {}
    for item in inputs:
        if item.kind == "override":
            found.setdefault(item.fact, {}).setdefault(item.origin, item)
    return found


def _named(inputs: list[Input]) -> str:
    return " and ".join(f"{i.origin} (default {show(i.default)})" for i in inputs)


def _defaults(inputs: list[Input]) -> object:
    shown = tuple(i.default for i in inputs)
    return shown[0] if len(shown) == 1 else shown
