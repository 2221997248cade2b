"""Helpers of the interpreter over plain values and run-time choices: what is a plain value,
how a value is shown in an unknown's text, and how the branches of a condition only the run
decides between are merged (one followed, the other noted, never a silent guess).
"""

from __future__ import annotations

import binascii
import re
from typing import Any

import libcst as cst

from streamlint.extract import chosen_dicts, registry
from streamlint.extract.code_text import code_text, names_of
from streamlint.extract.spark_values import Col
from streamlint.extract.templates import as_written
from streamlint.extract.values import (
    Alternatives,
    BoundMethod,
    Class,
    Function,
    Instance,
    Items,
    Lambda,
    Partial,
)
from streamlint.model import Fork, Loc, Note, Template, Unknown, branches


class Return(Exception):
    """A `return` statement unwinding to the function call that runs it."""

    def __init__(self, value: Any) -> None:
        self.value = value


class Raised(Exception):  # noqa: N818 - a signal, like Return
    """A `raise` in a function: the path it ends runs no further (extract/statements.py)."""


def is_plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return not length_unknown(value)  # `if extra:` on a list an `if` may have extended
    return isinstance(value, str | int | float | bool) or value is None


MAYBE_MORE = "the items after the first "


def length_unknown(value: tuple[Any, ...]) -> bool:
    """A list one branch extended and the other did not (`_choose_lengths`): how many items
    it holds is known only at run time."""
    return any(isinstance(item, Unknown) and item.text.startswith(MAYBE_MORE) for item in value)


def text_of(value: Any) -> str:
    if isinstance(value, Unknown):
        return value.text
    if isinstance(value, Template):
        return str(value)
    if isinstance(value, str):
        return value
    if is_data(value):
        return repr(value)
    # An object's repr holds addresses and locations: its shape names it instead.
    return f"<{type(value).__name__} #{digest(value)}>"


LOC_RE = re.compile(r"Loc\(path='[^']*', line=\d+, column=\d+\)")


def digest(value: Any) -> str:
    """A short, location-free fingerprint of a value's shape (for a DataFrame: its sources
    and operators, with what a grouping or a writer adds); only plain records and code
    without comments go in, so it is stable."""
    return _crc(_shape(value, 0))


def _shape(value: Any, depth: int) -> Any:
    parts = registry.digest_parts(value)
    if parts is not registry.NEXT:
        return parts
    if is_data(value):
        return value
    if isinstance(value, Unknown | Template):
        return text_of(value)  # a value not known is its code's text
    if depth > 4:
        return "..."
    if isinstance(value, tuple):
        return tuple(_shape(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return tuple((repr(key), _shape(item, depth + 1)) for key, item in value.items())
    if isinstance(value, Col):
        return ("col", repr(value))
    if isinstance(value, Function | Lambda):
        # Its code, and what it reads from where it was defined (a closure's key, a module's
        # KEY) and its defaults: the same code over another key is another function. A
        # method's instance (`self.key`) counts too.
        code = code_text(value.node)
        owner = getattr(value, "owner", None)
        return ("code", code, reads_config(value.env, value.node, depth),
                _shape(value.defaults, depth + 1),
                None if owner is None else _shape(owner, depth + 1))
    if isinstance(value, BoundMethod):
        return ("method", value.name, _shape(value.target, depth + 1))
    if isinstance(value, Class):
        return ("class", tuple(code_text(cls.node) for cls in classes_of(value)),
                _shape(dict(value.attributes), depth + 1))
    if isinstance(value, Instance):
        return ("instance", tuple(code_text(cls.node) for cls in classes_of(value.cls)),
                _shape(dict(value.attributes), depth + 1))
    if isinstance(value, Alternatives):
        return ("one of", _shape(value.options, depth + 1))
    if isinstance(value, Partial):
        return ("partial", _shape((value.func, value.args, value.kwargs), depth + 1))
    # A record (a function of a library, a schema, a module): its fields, without locations;
    # anything holding an object's address is named by its type alone.
    text = LOC_RE.sub("", repr(value))
    return type(value).__name__ if " at 0x" in text else text


def reads_config(env: Any, node: cst.CSTNode, depth: int) -> tuple[Any, ...]:
    """The names a function's code reads that its defining scope binds, with their shapes."""
    read: list[tuple[str, Any]] = []
    for name in names_of(node):
        try:
            value = env.lookup(name)
        except KeyError:
            continue
        read.append((name, _shape(value, depth + 2)))
    return tuple(read)


def _crc(parts: Any) -> str:
    return f"{binascii.crc32(LOC_RE.sub('', repr(parts)).encode()):08x}"


def choose(first: Any, second: Any, condition: str, loc: Loc) -> Any:
    """The value of a name that a run-time condition chooses between.

    A DataFrame (or its grouping, or its writer: what `registry.followed` names) is followed
    through one branch, and the query carries a note that the other branch may run instead:
    never a silent guess.
    """
    pair = _paired_items(first, second)
    if pair is not None:
        # `return {"df": a}` / `return {"df": b}`, `return [a]` / `return [b]`: the same shape
        # holding DataFrames is chosen item by item, each chosen DataFrame carrying its note.
        keys, items = pair
        chosen_items = [a if a is b else choose(a, b, condition, loc) for a, b in items]
        if keys:
            return dict(zip(keys, chosen_items, strict=True))
        return _as_list(chosen_items, first, second)
    if isinstance(first, tuple) and isinstance(second, tuple) and len(first) != len(second):
        return _choose_lengths(first, second, condition, loc)
    if isinstance(first, Items) and isinstance(second, Items) and first != second:
        # Two versions of one list holding no DataFrame (`cols.append("a")` or `"b"`): still
        # that list, so what is appended after them counts; each item chosen.
        return _as_list([a if a is b else choose(a, b, condition, loc)
                         for a, b in zip(first, second, strict=True)], first, second)
    chosen = first if registry.is_followed(first) else second
    if registry.is_followed(chosen):
        which = "first" if chosen is first else "other"
        other = second if chosen is first else first
        same = _same_dataframe([chosen], [other])
        # The branch not read still counts: its shape, as a short digest, is part of the note,
        # so a change there makes the note differ between versions (and the diff ask). A
        # branch writing the same DataFrame with other settings names only those settings:
        # the diff judges a change to the DataFrame on the branch read (diff/forks.py).
        said = (f"the DataFrame depends on the run-time condition `{condition}` (streamlint "
                f"read the {which} branch; the other ")
        # A branch not read names the note by its shape, never in the words people read.
        rest = ((f"writes {same[0].text}", f"writes {same[0].shown}") if same
                else (f"is #{digest(other)}", "is not read"))
        # Both branches at the fork as data (model.Fork), a writer's settings too.
        other_shape, chosen_shape = map(registry.shape_of, (other, chosen))
        return registry.note(chosen, Fork(f"{said}{rest[0]})", condition, which, other_shape,
                                          chosen_shape, same[1] if same else None,
                                          f"{said}{rest[1]})"), loc)
    if _choosable(first) and _choosable(second) and first is not second:
        options = _options(first) + tuple(o for o in _options(second)
                                          if not any(o is mine for mine in _options(first)))
        if len(options) > MAX_ALTERNATIVES:
            return Unknown(f"one of {len(options)} functions or objects chosen at run time "
                           f"(`{condition}`)")
        return Alternatives(options, condition, loc)
    if registry.is_kept(first) or isinstance(first, Function | Instance):
        return first
    if first is None and registry.is_kept(second):
        return second  # `x = None`, then `if c: x = Model.load(p)`: only the object is usable
    chosen = first if first == second else registry.choose_between(first, second, condition)
    if chosen is not registry.NEXT:
        return chosen
    return _run_time_value(first, second, condition, loc)


def _run_time_value(first: Any, second: Any, condition: str, loc: Loc) -> Unknown:
    """A value the condition chooses, known only at run time: its branches kept as data."""
    return chosen_dicts.remember(
        Unknown(f"{text_of(first)} if {condition} else {text_of(second)}",
                shown=f"{as_written(first)} if {condition} else {as_written(second)}",
                **branches(first, second, condition)),
        first, second, condition, loc)


def _choose_lengths(first: tuple[Any, ...], second: tuple[Any, ...], condition: str,
                    loc: Loc) -> tuple[Any, ...]:
    """One list left at two lengths (`if replay: topics.append(t)`): still a list, so later
    changes reach it. The shared first items are chosen one by one; the rest is one unknown
    item named by what the longer version holds there (location-free), so a change to it is a
    change and a moved line is not."""
    size = min(len(first), len(second))
    items = [a if a is b else choose(a, b, condition, loc)
             for a, b in zip(first[:size], second[:size], strict=True)]
    longer = first if len(first) > len(second) else second
    rest = _crc(tuple(digest(item) for item in longer[size:]))
    items.append(Unknown(f"{MAYBE_MORE}{size}, or none (`{condition}`): #{rest}",
                         shown=f"{MAYBE_MORE}{size}, or none (`{condition}`)"))
    return _as_list(items, first, second)


def _as_list(items: list[Any], first: tuple[Any, ...], second: tuple[Any, ...]) -> tuple[Any, ...]:
    """Two lists (`[a] if c else [b]`) chosen item by item are still a list; two versions of
    one list (each branch changed it) are still that list (values.Box)."""
    if type(first) is not type(second):
        return tuple(items)
    chosen = type(first)(items)
    if getattr(first, "box", None) is not None and first.box is second.box:
        chosen.box = first.box
    return chosen


# Functions or objects one name may hold at run time that are each run when called; more is
# an unknown (its calls then read nothing, and the streaming code they hold is reported).
MAX_ALTERNATIVES = 8


def _choosable(value: Any) -> bool:
    return isinstance(value, Function | Lambda | Class | Instance | Alternatives)


def _options(value: Any) -> tuple[Any, ...]:
    return value.options if isinstance(value, Alternatives) else (value,)


def after_guards(value: Any, guards: list[tuple[Any, str, Loc]]) -> Any:
    """What a function returns whose guard clauses (`if not topic: return None`) may have
    ended it early with an inert value: the DataFrame the rest of it returns, which is the
    only way it streams; any other value, a choice with theirs."""
    for early, condition, loc in guards:
        if holds_followed(value) or early is value or early == value:
            continue
        value = choose(early, value, condition, loc)
    return value


# What a heap write replaced when there was nothing there before.
ABSENT = object()


def after_guard_writes(log: list[tuple[Any, Any, Any]], guard: tuple[Any, str, Loc]) -> None:
    """Writes made after a guard clause, in a function whose early return skips them: each
    place holds a choice between what was written and what it held before (what the early
    path leaves), the latest write first; a place that held nothing keeps the write."""
    _, condition, loc = guard
    for owner, key, old in reversed(log):
        current = owner.get(key, ABSENT)
        if old is ABSENT or current is ABSENT or current is old or current == old:
            continue
        owner[key] = choose(current, old, condition, loc)


def inert(value: Any) -> bool:
    """A value a guard clause may return: plain data or a value not known, never a function,
    an object, a reader or anything a caller could stream through (a brain's handle that
    nothing streams through is one: `registry.inert`)."""
    return is_data(value) or isinstance(value, Unknown | Template) or registry.is_inert(value)


def holds_followed(value: Any, depth: int = 0) -> bool:
    """A followed object (a DataFrame, its grouping or writer), or a container holding one."""
    if registry.is_followed(value):
        return True
    if depth < 4 and isinstance(value, tuple | list):
        return any(holds_followed(v, depth + 1) for v in value)
    if depth < 4 and isinstance(value, dict):
        return any(holds_followed(v, depth + 1) for v in value.values())
    return False


def _paired_items(first: Any, second: Any) -> tuple[tuple, list[tuple[Any, Any]]] | None:
    """Two dicts with the same keys, or two tuples of one length, at least one of them holding
    a followed object (a DataFrame): their keys (none for tuples) and items side by side."""
    if isinstance(first, dict) and isinstance(second, dict) and first.keys() == second.keys():
        keys: tuple = tuple(first)
        items = [(first[k], second[k]) for k in keys]
    elif isinstance(first, tuple) and isinstance(second, tuple) and len(first) == len(second):
        keys, items = (), list(zip(first, second, strict=True))
    else:
        return None
    if not any(registry.is_followed(v) for pair in items for v in pair):
        return None
    return keys, items


def started_in_branches(started: list[list[Any]], condition: str, loc: Loc) -> list[Any]:
    """The queries the branches of a run-time condition start. Only one branch runs, so
    when several start queries (`if not partition_keys: ...toTable(t) else:
    ...partitionBy(k).toTable(t)`), the first branch's are the query and carry a note with
    the others' shape, which makes a change there a finding (as `choose` does for values)."""
    starting = [writers for writers in started if writers]
    if len(starting) <= 1:
        return [w for writers in started for w in writers]
    others = tuple(w for writers in starting[1:] for w in writers)
    same = (_same_dataframe(starting[0] * len(others), list(others))
            if len(starting[0]) == 1 else None)
    said = (f"the query depends on the run-time condition `{condition}` (streamlint read the "
            f"first branch that starts one; the others ")
    rest = ((f"write {same[0].text}", f"write {same[0].shown}") if same
            else (f"are #{digest(tuple(digest(w) for w in others))}", "are not read"))
    note = Fork(f"{said}{rest[0]})", condition, "first", None, None,
                same[1] if same else None, f"{said}{rest[1]})")
    return [registry.note(w, note, loc) for w in starting[0]]


def _same_dataframe(chosen: list[Any], others: list[Any]
                    ) -> tuple[Note, frozenset[str]] | None:
    """The note's words for branches writing the very DataFrame the chosen one does with other
    settings ("the same DataFrame differently, in format; option `path`: #digest" of their
    plain values), and those settings; None when any of them is not such a branch."""
    found = [registry.differences(a, b) for a, b in zip(chosen, others, strict=True)]
    if not found or any(f is None for f in found):
        return None
    labels = sorted({label for f in found if f for label, _ in f})
    if not labels:
        return None
    said = f"the same DataFrame differently, in {'; '.join(labels)}"
    return Note(f"{said}: #{_crc(tuple(found))}", said), frozenset(labels)


MUTATORS = {"append", "extend", "insert", "remove", "update", "setdefault", "pop", "reverse",
            "sort", "clear"}


def is_data(value: Any) -> bool:
    """Plain data worth naming in an unknown's text (never a symbolic object)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return True
    if isinstance(value, tuple):
        return all(is_data(v) for v in value)
    if isinstance(value, dict):
        return all(is_data(k) and is_data(v) for k, v in value.items())
    return False


def classes_of(cls: Class) -> list[Class]:
    """A class and its ancestors defined in the file, nearest first."""
    order, pending = [], [cls]
    while pending:
        current = pending.pop(0)
        if all(current is not seen for seen in order):
            order.append(current)
            pending.extend(current.bases)
    return order
