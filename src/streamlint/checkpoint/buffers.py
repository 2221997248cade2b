"""What an aggregation keeps in its state value: Spark's aggregation buffer, by field name.

A streaming aggregation stores, per key, the concatenated buffers of its aggregate functions,
each field named by the function's buffer attribute (Spark's `aggBufferAttributes`): `count`
keeps `count`, `sum` keeps `sum`, `avg` keeps `sum` and `count`, `first` keeps `first` and
`valueSet` (the fixtures' `struct<count:bigint,sum:bigint>` is `count(*)` then `sum(value)`).
Spark's schema check on restart compares field count and types only: `sum` -> `avg` adds a
field and is refused, `sum` -> `max` of a long passes it and the new function continues from
the old one's buffer. The names the checkpoint stored still say which function wrote them,
except where several functions keep the same buffer (`stddev` and `variance`, `collect_list`
and `collect_set`): there the checkpoint alone cannot tell.
"""

from __future__ import annotations

from collections.abc import Sequence

from streamlint.model.records import record

# Buffer attribute names per function, as Spark 4.3 writes them into the state schema
# (observed: tests/test_checkpoint_buffers.py runs each function and reads the schema file).
# `sum` of a decimal (and `try_sum`) adds `isEmpty`; approx_count_distinct keeps one `MS[i]`
# field per HyperLogLog word (their number depends on its rsd).
BUFFERS: dict[str, tuple[str, ...]] = {
    "count": ("count",),
    "sum": ("sum",),
    "avg": ("sum", "count"),
    "max": ("max",),
    "min": ("min",),
    "first": ("first", "valueSet"),
    "last": ("last", "valueSet"),
    "product": ("product",),
    "max_by": ("valueWithExtremumOrdering", "extremumOrdering"),
    "min_by": ("valueWithExtremumOrdering", "extremumOrdering"),
    "stddev_samp": ("n", "avg", "m2"),
    "stddev_pop": ("n", "avg", "m2"),
    "var_samp": ("n", "avg", "m2"),
    "var_pop": ("n", "avg", "m2"),
    "skewness": ("n", "avg", "m2", "m3"),
    "kurtosis": ("n", "avg", "m2", "m3", "m4"),
    "covar_samp": ("n", "xAvg", "yAvg", "ck"),
    "covar_pop": ("n", "xAvg", "yAvg", "ck"),
    "corr": ("n", "xAvg", "yAvg", "ck", "xMk", "yMk"),
    "collect_list": ("buf",),
    "collect_set": ("buf",),
    "percentile_approx": ("buf",),
}
# Other names of a function, and functions that keep another's buffer with its results
# (count_if is a count of a condition, bool_and the min of a boolean, try_sum a sum with
# `isEmpty`, any_value first): one name each, so that only functions with other results
# on the same buffer make it unclear.
ALIASES = {"mean": "avg", "try_avg": "avg", "stddev": "stddev_samp", "std": "stddev_samp",
           "variance": "var_samp", "count_if": "count", "bool_and": "min", "every": "min",
           "bool_or": "max", "some": "max", "any": "max", "any_value": "first",
           "first_value": "first", "last_value": "last", "try_sum": "sum",
           "approx_percentile": "percentile_approx"}
HLL = "approx_count_distinct"


@record
class BufferReading:
    """The stored value schema read against the new code's aggregates.

    `swaps`: (position, old function, new function) where the stored names say another
    function wrote the buffer; `unclear`: (position, function, why) where the checkpoint
    cannot tell which function wrote it; `shape`: the new aggregates keep another number of
    fields than the checkpoint stores (Spark refuses the restart), as (new, stored) counts."""

    swaps: tuple[tuple[int, str, str], ...] = ()
    unclear: tuple[tuple[int, str, str], ...] = ()
    shape: tuple[int, int] | None = None


def canonical(function: str) -> str:
    name = function.lower()
    return ALIASES.get(name, name)


def read_buffers(functions: Sequence[str], stored: Sequence[str]) -> BufferReading:
    """Walk the stored buffer fields along the new aggregates (each keeps its layout)."""
    at = 0
    swaps: list[tuple[int, str, str]] = []
    unclear: list[tuple[int, str, str]] = []
    for position, function in enumerate(functions):
        name = canonical(function)
        if name == HLL:
            width = _hll_width(stored, at)
            if not width:
                return BufferReading(tuple(swaps), (*unclear, (position, name, _OTHER)))
            at += width
            continue
        layout = BUFFERS.get(name)
        if layout is None:
            # A function whose buffer streamlint does not know: nothing after it can be placed.
            return BufferReading(tuple(swaps), (*unclear, (position, name, _UNKNOWN)))
        if name == "sum" and tuple(stored[at:at + 2]) == ("sum", "isEmpty"):
            layout = ("sum", "isEmpty")  # a decimal sum
        segment = tuple(stored[at:at + len(layout)])
        if segment == layout:
            sharing = sorted(f for f, names in BUFFERS.items() if names == layout and f != name)
            if sharing:
                unclear.append((position, name, f"{', '.join(sharing)} keep the same buffer "
                                f"({', '.join(layout)})"))
        else:
            before = _writer(segment)
            if before is None or len(segment) < len(layout):
                break  # not a layout that fits here: the shape decides below
            swaps.append((position, before, name))
        at += len(layout)
    else:
        if at == len(stored):
            return BufferReading(tuple(swaps), tuple(unclear))
    needed = _width(functions, stored)
    if needed is None or needed == len(stored):
        return BufferReading(tuple(swaps), (*unclear, (-1, "", _OTHER)))
    return BufferReading(tuple(swaps), tuple(unclear), (needed, len(stored)))


_UNKNOWN = "streamlint does not know the buffer this function keeps"
_OTHER = "the stored fields are not a buffer layout streamlint knows"


def _writer(segment: tuple[str, ...]) -> str | None:
    """The function (or functions) that keep exactly this buffer."""
    writers = [f for f, names in BUFFERS.items() if names == segment]
    return " or ".join(writers) if writers else None


def _hll_width(stored: Sequence[str], at: int) -> int:
    width = 0
    while at + width < len(stored) and stored[at + width] == f"MS[{width}]":
        width += 1
    return width


def _width(functions: Sequence[str], stored: Sequence[str]) -> int | None:
    """How many fields the new aggregates keep, when each one's buffer is known (a sum kept
    as a decimal's two fields cannot be told from the code: then None)."""
    total = 0
    for function in functions:
        name = canonical(function)
        if name not in BUFFERS or name == "sum" and "isEmpty" in stored:
            return None
        total += len(BUFFERS[name])
    return total


def swapped_functions(functions: Sequence[str], stored: Sequence[str]
                      ) -> list[tuple[int, str, str]] | None:
    """(position, old function, new function) for each aggregate whose stored buffer names
    say another function wrote them; None when the stored buffer cannot be read this way."""
    reading = read_buffers(functions, stored)
    if reading.shape is not None or any(why in (_UNKNOWN, _OTHER)
                                        for _, _, why in reading.unclear):
        return None
    return list(reading.swaps)
