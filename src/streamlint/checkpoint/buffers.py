"""What an aggregation keeps in its state value: Spark's aggregation buffer, by field name.

A streaming aggregation stores, per key, the concatenated buffers of its aggregate functions,
each field named by the function's buffer attribute (Spark's `aggBufferAttributes`): `count`
keeps `count`, `sum` keeps `sum`, `avg` keeps `sum` and `count`, `first` keeps `first` and
`valueSet` (the fixtures' `struct<count:bigint,sum:bigint>` is `count(*)` then `sum(value)`).
Spark's schema check on restart compares types only, so `sum` → `max` of a long passes it and
the new function continues from the old one's buffer; the names the checkpoint stored still
say which function wrote them.
"""

from __future__ import annotations

from collections.abc import Sequence

# Buffer attribute names per function (Spark 3.5–4.3 sources: Count, Sum, Average, Max, Min,
# First, Last). Sum and Average of a decimal add `isEmpty`; those are not matched (the field
# counts then differ and nothing is claimed).
BUFFERS: dict[str, tuple[str, ...]] = {
    "count": ("count",),
    "sum": ("sum",),
    "avg": ("sum", "count"),
    "mean": ("sum", "count"),
    "max": ("max",),
    "min": ("min",),
    "first": ("first", "valueSet"),
    "last": ("last", "valueSet"),
}


def swapped_functions(functions: Sequence[str], stored: Sequence[str]
                      ) -> list[tuple[int, str, str]] | None:
    """(position, old function, new function) for each aggregate whose stored buffer names
    say another function wrote them; None when the stored buffer cannot be read this way
    (a function with an unknown buffer, or a different number of fields)."""
    expected: list[tuple[str, ...]] = []
    for function in functions:
        names = BUFFERS.get(function.lower())
        if names is None:
            return None
        expected.append(names)
    if sum(len(names) for names in expected) != len(stored):
        return None
    swaps: list[tuple[int, str, str]] = []
    at = 0
    by_names = {names: function for function, names in BUFFERS.items() if function != "mean"}
    for position, (function, names) in enumerate(zip(functions, expected, strict=True)):
        segment = tuple(stored[at:at + len(names)])
        at += len(names)
        if segment != names:
            before = by_names.get(segment)
            if before is None:
                return None  # not a buffer layout streamlint knows: claim nothing
            swaps.append((position, before, function.lower()))
    return swaps
