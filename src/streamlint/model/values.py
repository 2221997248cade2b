"""Whether two model values are certainly different, certainly equal, or cannot be told apart.

The one decision the diff makes about partly-known values (`Template`s, tuples with some
unresolved elements). Its premise is the model's: an unresolved part written as the same code
in both versions is the same run-time value. Everything else about an unresolved part is
unknown, so the answer is "certainly different" only when no value of the unresolved parts
could make the two equal; otherwise it is None and the change is a question for a human.
"""

from __future__ import annotations

from streamlint.model import UNRESOLVED_MARK, Template, Unknown, is_known
from streamlint.model.paths import normal_value

# A tuple element that stands for any number of elements (`[*EXTRA, "b"]` with EXTRA
# unresolved): the extractor writes its code with this prefix.
STARRED = "*"

Parts = tuple[str | Unknown, ...]


def values_differ(a: object, b: object) -> bool | None:
    """True: certainly different values. False: certainly equal. None: cannot tell.

    - Equal records are equal (an unresolved value written the same is the same value).
    - Strings, `Unknown`s and `Template`s are all sequences of known text and unresolved
      parts. They differ when their leading or trailing known text cannot match; when both
      have the same unresolved parts in the same order and their known text differs in
      length or where it lines up; and a known string differs from a template it cannot
      fill (the template's known parts are not in it, in order).
    - Tuples of one length compare position by position: any certainly different position
      makes them different; all certainly equal makes them equal. Tuples of different
      lengths differ unless an element stands for an unknown number of elements
      (`*EXTRA`); with those, they are compared like templates, element by element.
    - A template (always a string) differs from a known value that is no string (None for
      an option that is not set, a number).
    - A value a run-time condition chooses compares by the values it may take
      (`_choices_differ`).
    - Anything else (numbers, None, a text with an unresolved mark inside): equal or not
      by `==` when both are fully known, otherwise undecided.
    """
    if a == b:
        return False
    if _chosen(a) or _chosen(b):
        return _choices_differ(a, b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return _tuples_differ(a, b)
    pa, pb = _parts(a), _parts(b)
    if pa is not None and pb is not None:
        return _parts_differ(pa, pb)
    if isinstance(a, Template) and is_known(b) or isinstance(b, Template) and is_known(a):
        return True  # a template is a string; the other value is a known non-string
    if is_known(a) and is_known(b):
        return True
    return None


def _chosen(value: object) -> bool:
    return isinstance(value, Unknown) and bool(value.alternatives)


def _choices_differ(a: object, b: object) -> bool | None:
    """A value a run-time condition chooses (`"/a" if IS_PROD else "/b"`) against another.
    Two choices on one condition (the same code on both sides is the same run-time value)
    compare branch by branch: every branch certainly different is a different value whatever
    the condition, every branch equal is the same value. Otherwise the values differ only
    when no value one side may take can be a value the other may take."""
    if (_chosen(a) and _chosen(b) and a.condition and a.condition == b.condition  # type: ignore[union-attr]
            and len(a.alternatives) == len(b.alternatives)):  # type: ignore[union-attr]
        results = [_branch_differs(x, y) for x, y in
                   zip(a.alternatives, b.alternatives, strict=True)]  # type: ignore[union-attr]
        if all(r is True for r in results):
            return True
        return False if all(r is False for r in results) else None
    olds = a.alternatives if _chosen(a) else (a,)  # type: ignore[union-attr]
    news = b.alternatives if _chosen(b) else (b,)  # type: ignore[union-attr]
    return True if all(_branch_differs(x, y) is True for x in olds for y in news) else None


def _branch_differs(a: object, b: object) -> bool | None:
    """Two values of a choice's branches, as paths where they are (`/chk/a/` is `/chk/a`):
    spelling a directory another way is no other value."""
    return values_differ(normal_value(a), normal_value(b))


def certainly_different(a: object, b: object) -> bool:
    return values_differ(a, b) is True


def _parts(value: object) -> Parts | None:
    """A string-like value as alternating known text and unresolved parts; None otherwise."""
    if isinstance(value, Template):
        return value.parts
    if isinstance(value, Unknown):
        if value.text.startswith(STARRED):
            return None  # several values, not one string
        return ("", value, "")
    if isinstance(value, str) and UNRESOLVED_MARK not in value:
        return (value,)
    return None


def _parts_differ(a: Parts, b: Parts) -> bool | None:
    ka, kb = [p for p in a if isinstance(p, str)], [p for p in b if isinstance(p, str)]
    # The leading known text: both values start with it, whatever follows.
    if _clash(ka[0], kb[0]) or _clash(ka[-1][::-1], kb[-1][::-1]):
        return True
    ua, ub = [p for p in a if isinstance(p, Unknown)], [p for p in b if isinstance(p, Unknown)]
    if not ua and not ub:
        return ka[0] != kb[0]
    if not ua or not ub:
        text, pattern = (ka[0], kb) if not ua else (kb[0], ka)
        return None if _fills(text, pattern) else True
    if ua == ub:
        # The same unresolved values in the same places: known text of another length makes
        # another string, and so does known text that differs where it lines up.
        if sum(map(len, ka)) != sum(map(len, kb)):
            return True
        for x, y in zip(ka, kb, strict=True):
            if x != y:
                return True if _clash(x, y) else None
        return False
    return None


def _clash(x: str, y: str) -> bool:
    """Two texts that start at the same place disagree before either ends."""
    n = min(len(x), len(y))
    return x[:n] != y[:n]


def _fills(text: str, known: list[str]) -> bool:
    """Whether some strings in place of the unresolved parts make `known` into `text`:
    `known` are the template's known pieces, with an unresolved part between each two."""
    first, last, middle = known[0], known[-1], known[1:-1]
    if not text.startswith(first) or len(text) < len(first) + len(last):
        return False
    if not text.endswith(last):
        return False
    at, end = len(first), len(text) - len(last)
    for piece in middle:  # leftmost placement is always the best one for wildcards
        found = text.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _tuples_differ(a: tuple, b: tuple) -> bool | None:
    starred = any(_is_starred(v) for v in (*a, *b))
    if len(a) == len(b) and not starred:
        results = [values_differ(x, y) for x, y in zip(a, b, strict=True)]
        if any(r is True for r in results):
            return True
        return False if all(r is False for r in results) else None
    if not starred:
        return True
    # Some element is any number of elements: line the two up from each end, as far as the
    # first starred element; the same starred elements in the same order with a different
    # count of single elements between them is another tuple.
    for xs, ys in ((a, b), (a[::-1], b[::-1])):
        for x, y in zip(xs, ys, strict=False):
            if _is_starred(x) or _is_starred(y):
                break
            if values_differ(x, y) is True:
                return True
    sa, sb = [v for v in a if _is_starred(v)], [v for v in b if _is_starred(v)]
    if sa == sb and len(a) != len(b):
        return True
    return None


def _is_starred(value: object) -> bool:
    return isinstance(value, Unknown) and value.text.startswith(STARRED)
