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

from streamlint.model import (
    Input,
    Loc,
    Overridable,
    Query,
    Template,
    Unknown,
    origins_of,
    show,
)
from streamlint.model.paths import normal_path
from streamlint.model.values import values_differ

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


def differs_in_every_deployment(old: object, new: object) -> bool:
    """Whether no value a deployment may give (a widget, an environment variable, an argument
    with a default) can make the two values one: their parts written in the code clash, as
    `abfss://acct/{src}/` and `/Volumes/{catalog}/raw/` or topic `click` and `{env}.bookmark`
    do. Then the change is judged as the change it is, not asked about."""
    if not all(type(v) in (str, Overridable, Template, Unknown) for v in (old, new)):
        return False  # an expression or its text, a number, a list: no default located in it
    a, b = _deployment_shape(old), _deployment_shape(new)
    if _relative(a) or _relative(b):
        return False  # `chk/q` is `/app/chk/q` under some working directory
    return values_differ(a, b) is True


def _deployment_shape(value: object) -> object:
    """A value with each deployment default in it opened up into what the deployment may set
    (`Overridable("/mnt/chk/q")` from widget `root` is `{widget root}/chk/q`), the ends of a
    path in their normal form; a default that cannot be found in the text makes it unknown."""
    origins = origins_of(value)
    if not origins:
        return normal_path(value) if isinstance(value, str) else value
    parts: list[str | Unknown] = [str(value)]
    for origin, default in origins:
        if not default or not any(isinstance(p, str) and default in p for p in parts):
            return Unknown(f"any value of {origin}")
        opened: list[str | Unknown] = []
        for part in parts:
            if not isinstance(part, str):
                opened.append(part)
                continue
            pieces = part.split(default)
            for i, piece in enumerate(pieces):
                if i:
                    opened.append(Unknown(origin))
                opened.append(piece)
        parts = opened
    return Template(tuple(_alternating(parts)))


def _alternating(parts: list[str | Unknown]) -> list[str | Unknown]:
    """Known text and unresolved parts in turn, starting and ending with (maybe empty) text,
    the known ends in a path's normal form."""
    out: list[str | Unknown] = []
    for part in parts:
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        elif isinstance(part, Unknown) and (not out or isinstance(out[-1], Unknown)):
            out += ["", part]
        else:
            out.append(part)
    if isinstance(out[-1], Unknown):
        out.append("")
    if "/" in out[-1]:
        out[-1] = out[-1].rstrip("/")
    # The scheme's (or `/dbfs`'s) normal form, without touching the text that follows.
    out[0] = normal_path(out[0] + "x")[:-1]
    return out


def _relative(value: object) -> bool:
    """A path written relative to the working directory (its leading text has a `/` but
    starts with neither `/` nor a scheme)."""
    lead = value.parts[0] if isinstance(value, Template) else value
    if not isinstance(lead, str) or "/" not in lead:
        return False
    return not lead.startswith("/") and ":" not in lead.split("/")[0]


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
