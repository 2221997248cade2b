"""The stateless parts of two versions of a query compared: watermarks, filters, projections
(the output columns, their names and stated types) and stream-static joins.

Functions of the differ (`diff.compare._Differ`, bound there as its methods): each reports
through `self.add`, so the verdicts stay in the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamlint.diff.columns import (
    changed_steps,
    column_mapping,
    renamed,
    same_names,
    same_names_text,
)
from streamlint.diff.render import Code, column_list, maybe_names, projections_text
from streamlint.diff.shapes import _conditions, _static
from streamlint.diff.sinks import columns_sink
from streamlint.diff.types import changed_types, narrowed, widened
from streamlint.model import Loc, Watermark
from streamlint.model.durations import same_duration
from streamlint.model.expr import render

if TYPE_CHECKING:
    from streamlint.diff.compare import _Differ


def _column_values(cols: tuple[tuple[str, ...] | None, tuple[str, ...] | None],
                   projections: tuple[list[Any], list[Any]],
                   static: tuple[list[Any], list[Any]]) -> tuple[Any, Any]:
    """Each version's output columns for PR03: listed where known, else named by the steps
    that make them (those that differ, where neither list is known)."""
    steps: tuple[Any, Any] = (changed_steps(*projections) if cols == (None, None)
                              else projections)
    return tuple(column_list(c) if c is not None else _unlisted(s, j)  # type: ignore[return-value]
                 for c, s, j in zip(cols, steps, static, strict=True))


def _unlisted(projections: list[Any] | Code, static_joins: list[Any]) -> Code:
    """Output columns streamlint cannot list, named by what makes them."""
    if isinstance(projections, Code) and projections != "(none)":
        return Code(f"those of {projections}")
    if projections and not isinstance(projections, Code):
        return Code(f"those of {projections_text(projections)}")
    if static_joins:
        return Code(f"those of the stream-static join {_static(static_joins)}")
    return Code("those of the query's input (not listed)")


def watermarks(self: _Differ) -> None:
    old = [o for o in self.old.operators if isinstance(o, Watermark)]
    new = [o for o in self.new.operators if isinstance(o, Watermark)]
    # Pair watermarks on the same column first: a delay moved next to its operator is a
    # changed delay, not one watermark removed and another added.
    paired: list[tuple[Watermark, Watermark]] = []
    unpaired_old = list(old)
    for w in new:
        match = next((o for o in unpaired_old if o.column == w.column), None)
        if match is not None:
            unpaired_old.remove(match)
            paired.append((match, w))
    old = unpaired_old
    new = [w for w in new if all(w is not b for _, b in paired)]
    for a, b in paired:
        if not same_duration(a.delay, b.delay):
            self.add("watermark.delay", f"the watermark delay on {b.column}", a.delay,
                     b.delay, a.loc, b.loc)
    for a, b in zip(old, new, strict=False):
        if a.column != b.column:
            self.add("watermark.column", "the watermark column", Code(a.column),
                     Code(b.column), a.loc, b.loc)
        if not same_duration(a.delay, b.delay):
            self.add("watermark.delay", f"the watermark delay on {b.column}", a.delay,
                     b.delay, a.loc, b.loc)
    for a in old[len(new):]:
        self.add("watermark.removed", "a watermark", Code(f"{a.column}, {a.delay}"), None,
                 a.loc, None)
    for b in new[len(old):]:
        self.add("watermark.added", "a watermark", None, Code(f"{b.column}, {b.delay}"),
                 None, b.loc)


def filters_and_projections(self: _Differ) -> None:
    old_filters = [o for o in self.old.operators if o.kind == "filter"]
    new_filters = [o for o in self.new.operators if o.kind == "filter"]
    old_conds = [f.condition for f in old_filters]  # type: ignore[union-attr]
    new_conds = [f.condition for f in new_filters]  # type: ignore[union-attr]
    if sorted(old_conds, key=render) != sorted(new_conds, key=render):
        removed = [f for f in old_filters if f.condition not in new_conds]  # type: ignore
        added = [f for f in new_filters if f.condition not in old_conds]  # type: ignore
        self.add(
            "filter.changed", "the filters",
            _conditions(removed), _conditions(added),
            removed[0].loc if removed else None, added[0].loc if added else None,
        )
    old_proj = [o for o in self.old.operators if o.kind == "projection"]
    new_proj = [o for o in self.new.operators if o.kind == "projection"]
    old_cols, new_cols = self.old.output_columns, self.new.output_columns
    projections_changed = [p.exprs for p in old_proj] != [p.exprs for p in new_proj]  # type: ignore
    columns_changed = old_cols is not None and new_cols is not None and old_cols != new_cols
    old_static = [o for o in self.old.operators if o.kind == "static_join"]
    new_static = [o for o in self.new.operators if o.kind == "static_join"]
    static_changed = [(o.how, o.on) for o in old_static] != [  # type: ignore[attr-defined]
        (o.how, o.on) for o in new_static]  # type: ignore[attr-defined]
    # A changed static side (its table, its columns, the join type) may change the names
    # the sink gets: unless both lists are known and equal, PR03 asks.
    static_columns = static_changed and not (old_cols is not None and old_cols == new_cols)
    if projections_changed or columns_changed or static_columns:
        # Point at the first projection that differs; if none does (an aggregate renamed),
        # at the sinks, where the new columns arrive.
        first = next((i for i, (x, y) in enumerate(zip(old_proj, new_proj, strict=False))
                      if x.exprs != y.exprs), min(len(old_proj), len(new_proj)))  # type: ignore
        loc_a = old_proj[first].loc if first < len(old_proj) else self.old.sink.loc
        loc_b = new_proj[first].loc if first < len(new_proj) else self.new.sink.loc
        if self.retyped(old_cols, new_cols, loc_a, loc_b):
            pass
        elif old_cols is not None and old_cols == new_cols:
            self.add("projection.same_columns", "the projections",
                     projections_text(old_proj), maybe_names(new_cols), loc_a, loc_b)
        elif old_cols is None and new_cols is None and same_names(self.old, self.new):
            # Neither list is known, but both versions read the same sources and name
            # every column by the same steps: only what is computed under a name changed.
            before, after = changed_steps(old_proj, new_proj)
            self.add("projection.same_columns", "the projections", before,
                     same_names_text(after), loc_a, loc_b)
        else:
            reordered = (old_cols is not None and new_cols is not None
                         and sorted(old_cols) == sorted(new_cols))
            self.add("projection.columns", "the output columns",
                     *_column_values((old_cols, new_cols), (old_proj, new_proj),
                                     (old_static, new_static)),
                     loc_a, loc_b,
                     old_sink=columns_sink(self.old.sink),
                     new_sink=columns_sink(self.new.sink),
                     reordered=str(reordered).lower(),
                     renamed=str(renamed(self.old, self.new)).lower(),
                     column_mapping=column_mapping(self.old.sink, self.new.sink))
    if static_changed:
        self.add("static_join.changed", "a stream-static join",
                 _static(old_static), _static(new_static),
                 old_static[0].loc if old_static else None,
                 new_static[0].loc if new_static else None)


def retyped(self: _Differ, old_cols: tuple[str, ...] | None, new_cols: tuple[str, ...] | None,
            loc_a: Loc, loc_b: Loc) -> bool:
    """The same column names with another stated type (`current_date()` ->
    `current_timestamp()`): another output schema, a change of the columns."""
    named_alike = old_cols is not None and old_cols == new_cols or (
        old_cols is None and new_cols is None and same_names(self.old, self.new))
    retyped = (changed_types(self.old.operators, self.new.operators, new_cols)
               if named_alike else [])
    if retyped:
        self.add("projection.columns", "the output columns",
                 tuple(Code(f"{name}: {a}") for name, a, _ in retyped),
                 tuple(Code(f"{name}: {b}") for name, _, b in retyped), loc_a, loc_b,
                 old_sink=columns_sink(self.old.sink),
                 new_sink=columns_sink(self.new.sink),
                 narrowed=str(any(narrowed(a, b) for _, a, b in retyped)).lower(),
                 widened=str(all(widened(a, b) for _, a, b in retyped)).lower())
    return bool(retyped)
