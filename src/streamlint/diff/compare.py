"""Compare two query shapes into a list of changes, each a kind with old and new values.

The diff states facts only ("the grouping keys changed"); whether a change is safe is the
rules' business (`streamlint.rulebook.matrix`), so the matrix stays data.
"""

from __future__ import annotations

import difflib
from typing import Any

from streamlint.diff import forks, operators
from streamlint.diff.changes import (
    CHANGE_KINDS,
    STILL_MATTERS_AFTER_RESET,
    STRUCTURAL,
    Change,
    changed_modules,
    deliberate_reset,
    query_added,
    query_removed,
    unseen_changes,
)
from streamlint.diff.columns import (
    changed_steps,
    column_mapping,
    renamed,
    same_names,
    same_names_text,
)
from streamlint.diff.evolution import checkpoint_v1, naming
from streamlint.diff.inputs import differs_in_every_deployment, input_changes, overridden
from streamlint.diff.refused import newly_refused
from streamlint.diff.render import (
    Code,
    column_list,
    describe,
    maybe_names,
    op_name,
    projections_text,
    trigger_text,
)
from streamlint.diff.shapes import (
    _align,
    _conditions,
    _keys_of,
    _origin,
    _schema_change,
    _source_key,
    _static,
    _undecidable,
    sink_kind,
)
from streamlint.diff.types import changed_types, narrowed, widened
from streamlint.diff.usage import uses
from streamlint.model import (
    Aggregation,
    ArbitraryState,
    BatchWrite,
    Deduplication,
    External,
    ForeachCode,
    Loc,
    Note,
    Operator,
    Query,
    Sink,
    Source,
    StreamJoin,
    Watermark,
    WrittenStep,
    is_known,
    option,
)
from streamlint.model.durations import normalized, same_duration
from streamlint.model.expr import render
from streamlint.model.paths import same_path
from streamlint.model.records import replace
from streamlint.rulebook.change import OUTPUT_MODES
from streamlint.rulebook.matrix import judged_without_values
from streamlint.rulebook.options import classify, sink_value_free

__all__ = ["CHANGE_KINDS", "Change", "Code", "changed_modules", "query_added", "query_removed",
           "unseen_changes"]


# What a foreach/foreachBatch function may write without a table's schema to match: a Kafka
# topic, a client's call (a document store, a queue), a console; updates and deletes name
# their columns. A batch written as it is to a table, a path or by JDBC carries its columns.
_SCHEMA_FREE_WRITES = frozenset({"call", "kafka", "console", "noop", "memory", "update",
                                 "delete"})


def columns_sink(sink: Sink) -> str:
    """The sink's kind as new output columns meet it: a foreach/foreachBatch sink whose
    function writes the batch somewhere that checks a schema (or whose writes could not be
    read) is such a sink ("other"), not one without a schema."""
    kind = sink_kind(sink.format)
    if kind != "foreach" or sink.foreach is None:
        return kind
    writes = sink.foreach.writes
    if writes is None or any(w.kind not in _SCHEMA_FREE_WRITES for w in writes):
        return "other"
    return kind


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


# What a foreachBatch write writes, compared (model/WRITTEN_EFFECTS): its columns, which rows
# (other than by a predicate) and the query that feeds it.
WRITTEN_DATA = frozenset({"columns", "rows", "query"})


def _steps_text(steps: tuple[WrittenStep, ...], whole: tuple[WrittenStep, ...]) -> Code:
    """The steps one side has and the other has not; "the batch as it comes" when that side
    has none at all, "nothing more" when its others are shared."""
    return Code("; ".join(str(s) for s in steps)
                or ("nothing more" if whole else "the batch as it comes"))


def _made(code: ForeachCode) -> tuple[BatchWrite, ...] | None:
    """The writes a sink function makes. `foreach` calls it with a Row on an executor: a
    DataFrame writer, a merge or SQL there fails instead of writing (tests/test_spark_stream_
    facts.py), which is not what the same code does under foreachBatch; a client's call
    writes under either."""
    if code.writes is None or code.method != "foreach":
        return code.writes
    return tuple(w if w.kind == "call" else replace(
        w, kind=f"{w.kind} (fails: foreach hands its function a Row)") for w in code.writes)


# Sinks whose output is not kept: without checkpointLocation Spark runs them on a temporary
# checkpoint (tests/test_spark_stream_facts.py), so a restart has nothing durable to resume.
_UNKEPT_SINKS = frozenset({"console", "memory", "noop"})


def _pinning(old: Query, new: Query) -> dict[str, str]:
    """Which versions set the checkpoint in the code (`pinned`: both, old, new) and, where one
    does not, where that version's checkpoint comes from (`unpinned`): `root`, under the
    spark.sql.streaming.checkpointLocation its code sets (a random folder there when the query
    has no name, so never the other version's); `temporary`, a sink whose output is not kept;
    `named`, the deployment's spark.sql.streaming.checkpointLocation and the query's name,
    which may be the other version's directory; `fresh`: none of these, so Spark refuses to
    start it or gives it a new checkpoint on every start."""
    if (old.sink.checkpoint is None) == (new.sink.checkpoint is None):
        return {"pinned": "both"}
    bare = old if old.sink.checkpoint is None else new
    if any(s.key == "spark.sql.streaming.checkpointLocation" for s in bare.config):
        unpinned = "root"
    elif sink_kind(bare.sink.format) in _UNKEPT_SINKS:
        unpinned = "temporary"
    elif bare.sink.query_name is not None:
        unpinned = "named"
    else:
        unpinned = "fresh"
    return {"pinned": "old" if bare is new else "new", "unpinned": unpinned}


class _Differ:
    def __init__(self, old: Query, new: Query, changed_modules: frozenset[str] = frozenset(),
                 memo: dict[tuple[str, ...], list[Change]] | None = None) -> None:
        self.old, self.new = old, new
        self.changed_modules = changed_modules
        # Branches of run-time forks already compared (notes nest: an upstream fork's note
        # is in every downstream one's branch), so each pair is compared once.
        self.memo = {} if memo is None else memo
        self.query = new.label
        self.changes: list[Change] = []
        self.stateful = "true" if (old.stateful or new.stateful) else "false"

    def add(self, kind: str, subject: str, old: Any, new: Any, old_loc: Loc | None,
            new_loc: Loc | None, structural: bool = False, **facts: str) -> None:
        """Record a change. A *structural* change (an operator or source added, removed or
        replaced) is judged whatever its unresolved details; any other change whose value we
        could not resolve becomes a question for a human: never a guess."""
        facts.setdefault("stateful", self.stateful)
        if (not structural and kind not in STRUCTURAL and _undecidable(old, new)
                and not judged_without_values(Change(kind, subject, old, new, old_loc, new_loc,
                                                     self.query, facts))):
            # Never guess: a change we cannot tell is one, and whose verdict its values may
            # decide, is a question for a human.
            facts = {"about": kind, "stateful": self.stateful}
            kind = "unresolved"
        self.changes.append(Change(kind, subject, old, new, old_loc, new_loc, self.query, facts))

    def run(self) -> list[Change]:
        self.checkpoint()
        self.unresolved()
        if _origin(self.old) == _origin(self.new):
            self.sources()
            self.stateful_operators()
            self.watermarks()
            self.filters_and_projections()
        # Otherwise one version's DataFrame comes from code streamlint cannot follow (a SQL
        # text built at run time, a package's reader): what it reads and keeps is unknown, so
        # nothing is claimed "removed" or "added"; its note (UN01) asks a person instead.
        self.sink()
        self.config()
        for reason, what in newly_refused(self.old, self.new):
            self.add("query.refused", what, None, Code(what), self.old.sink.loc, self.new.sink.loc,
                     reason=reason)
        self.same_dataframe_branches()
        self.inputs()
        self.changes = forks.without_repeats(self.changes)
        continued = forks.continued_branch(self.old, self.new, self.changes, self._compare)
        if continued is not None:  # the old deployment keeps to a branch like the old query
            self.changes = continued
        if any(c.kind == "query.checkpoint" and c.facts.get("reset") == "explicit"
               for c in self.changes):
            # A fresh checkpoint carries no state, offsets or settings from the old one:
            # only what the new query does to its sink (and what could not be read) remains.
            return [c for c in self.changes if c.kind in STILL_MATTERS_AFTER_RESET]
        return self.changes

    # -- query level ------------------------------------------------------------------------

    def checkpoint(self) -> None:
        old, new = self.old.sink, self.new.sink
        if not same_path(old.checkpoint, new.checkpoint):
            self.add("query.checkpoint", "checkpointLocation", old.checkpoint, new.checkpoint,
                     old.checkpoint_loc or old.loc, new.checkpoint_loc or new.loc,
                     reset="explicit" if deliberate_reset(self.old, self.new) else "no",
                     **_pinning(self.old, self.new))

    def unresolved(self) -> None:
        """Notes on code streamlint could not read, when they changed. A note written the same
        in both versions is the same code with the same inputs: code outside the repository
        (a package, a run-time value) that did not change here. One inside a module of the
        repository whose text changed is still asked about."""
        old_notes = {text: loc for text, loc in self.old.unresolved}
        new_notes = {text: loc for text, loc in self.new.unresolved}
        matched, found = forks.matched_forks(self.old, self.new, old_notes, new_notes,
                                             self._compare)
        self.changes.extend(found)  # judged on the branch not read, as on the one read
        # A note that reads the same but names other code (a branch not read that changed):
        # one note that says so, not the same words removed and added.
        reworded = {str(t): t for t in old_notes if t not in new_notes and t not in matched}
        paired: set[str] = set()
        for text, loc in new_notes.items():
            if text in matched:
                continue
            before = reworded.get(str(text)) if text not in old_notes else None
            if before is not None:
                paired.add(before)
                changed = Note(text, f"{text}, and that code changed")
                self.add("unresolved", changed, None, changed, old_notes[before], loc,
                         about="code")
            elif text not in old_notes or (isinstance(text, External) and self._in_changed_module(
                    loc, old_notes[text])):
                self.add("unresolved", text, None, text, old_notes.get(text), loc, about="code")
        for text, loc in old_notes.items():
            if text not in new_notes and text not in paired and text not in matched:
                self.add("unresolved", text, text, None, loc, None, about="code")

    def _compare(self, key: tuple[str, ...], old: Query, new: Query) -> list[Change]:
        if key not in self.memo:
            self.memo[key] = _Differ(old, new, self.changed_modules, self.memo).run()
        return self.memo[key]

    def inputs(self) -> None:
        """Values from outside the code (diff/inputs.py). A change found where a default a
        deployment may override changed or moved is never judged on the default alone: it
        is asked about (UN02), beside the change naming the variable and both defaults, unless
        no value the deployment may give makes the old value again: then it is judged."""
        decided: set[tuple[Loc, str]] = set()
        for found in input_changes(self.old, self.new):
            kind, subject, old, new, old_loc, new_loc, facts = found
            self.add(kind, subject, old, new, old_loc, new_loc, structural=True, **facts)
            decided |= overridden(found)
        for i, change in enumerate(self.changes):
            if ((change.old_loc, change.kind) in decided or (change.new_loc, change.kind)
                    in decided) and not differs_in_every_deployment(change.old, change.new):
                self.changes[i] = replace(change, kind="unresolved", facts={
                    "about": change.kind, "stateful": self.stateful})

    def same_dataframe_branches(self) -> None:
        """A note on a branch writing the same DataFrame with other settings, written the
        same in both versions: the changes found here are that branch's changes too, unless
        one may act differently under its settings (diff/forks.py); then it is asked about."""
        new_notes = dict(self.new.unresolved)
        for text, old_loc in self.old.unresolved:
            settings = forks.settings_of(text)
            if settings is None or text not in new_notes:
                continue
            differing = [c for c in self.changes if forks.may_differ(c, settings)]
            if differing:
                self.add("unresolved", f"{text}: {differing[0].subject} changed on both "
                         f"branches and may act differently under the other's settings", None,
                         text, old_loc, new_notes[text], about="code")

    def _in_changed_module(self, *locs: Loc) -> bool:
        return any(loc.path.endswith(path) and loc.path[: len(loc.path) - len(path)][-1:] in
                   ("", "/", ":") for loc in locs for path in self.changed_modules)

    # -- sources ----------------------------------------------------------------------------

    def sources(self) -> None:
        old, new = self.old.sources, self.new.sources
        named = all(isinstance(s.name, str) for s in (*old, *new)) and bool(old and new)
        facts = {"named": "true" if named else "false"}
        if named:
            by_name = {s.name: s for s in old}
            pairs = [(by_name.get(s.name), s) for s in new]
            pairs += [(s, None) for s in old if s.name not in {n.name for n in new}]
        else:
            signature = [_source_key(s) for s in old]
            if len(old) == len(new) and signature != [_source_key(s) for s in new] and sorted(
                    signature, key=repr) == sorted([_source_key(s) for s in new], key=repr):
                self.add("source.reordered", "the order of the sources",
                         tuple(describe(s) for s in old), tuple(describe(s) for s in new),
                         old[0].loc, new[0].loc, **facts)
                return
            pairs = _align(old, new, key=_source_key)
        for before, after in pairs:
            if before is None and after is not None:
                self.add("source.added", "a streaming source", None, describe(after), None,
                         after.loc, **facts)
            elif after is None and before is not None:
                self.add("source.removed", "a streaming source", describe(before), None,
                         before.loc, None, **facts)
            elif before is not None and after is not None:
                self.source_pair(before, after, facts)

    def source_pair(self, old: Source, new: Source, facts: dict[str, str]) -> None:
        if old.format != new.format:
            self.add("source.type", "the source format", old.format, new.format, old.loc,
                     new.loc, old_format=str(old.format), new_format=str(new.format), **facts)
            return
        fmt = str(new.format)
        for key in _keys_of(old.identity, new.identity):
            a, b = option(old.identity, key), option(new.identity, key)
            if a != b and not (key.lower() == "path" and same_path(a, b)):
                self.add("source.identity", f"the {fmt} source option `{key}`", a, b, old.loc,
                         new.loc, key=key.lower(), **facts)
        for key in _keys_of(old.rate_limits, new.rate_limits):
            a, b = option(old.rate_limits, key), option(new.rate_limits, key)
            if a != b:
                self.add("source.rate_limit", f"the rate limit `{key}`", a, b, old.loc, new.loc)
        for key in _keys_of(old.options, new.options):
            a, b = option(old.options, key), option(new.options, key)
            if a != b:
                known = classify(fmt, key)
                cited = {"option_docs": known.docs} if known is not None and known.docs else {}
                self.add("source.option", f"the {fmt} source option `{key}`", a, b, old.loc,
                         new.loc, key=key.lower(),
                         option_class=known.name if known is not None else "unknown", **cited)
        if old.schema != new.schema:
            fields, columns = _schema_change(old.schema, new.schema, fmt)
            used = uses((self.old, self.new), columns) if fields != "other" else "unknown"
            self.add("source.schema", f"the declared schema of the {fmt} source", old.schema,
                     new.schema, old.loc, new.loc, fields=fields, used=used)
        if old.name != new.name and facts.get("named") != "true":
            self.add("source.name", "the source name", old.name, new.name, old.loc, new.loc,
                     naming=naming(old.name, new.name))

    # -- stateful operators -------------------------------------------------------------------

    def stateful_operators(self) -> None:
        old, new = self.old.stateful, self.new.stateful
        matcher = difflib.SequenceMatcher(a=[o.kind for o in old], b=[o.kind for o in new],
                                          autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for a, b in zip(old[i1:i2], new[j1:j2], strict=True):
                    self.operator_pair(a, b)
                continue
            if tag == "replace" and i2 - i1 == j2 - j1:
                for a, b in zip(old[i1:i2], new[j1:j2], strict=True):
                    self.add("stateful.replaced", "a stateful operator", op_name(a),
                             op_name(b), a.loc, b.loc)
                continue
            for a in old[i1:i2]:
                self.add("stateful.removed", "a stateful operator", op_name(a), None, a.loc,
                         None)
            for b in new[j1:j2]:
                self.add("stateful.added", "a stateful operator", None, op_name(b), None, b.loc)

    def operator_pair(self, a: Operator, b: Operator) -> None:
        if isinstance(a, Aggregation) and isinstance(b, Aggregation):
            operators.aggregation(self.add, a, b)
        elif isinstance(a, Deduplication) and isinstance(b, Deduplication):
            operators.deduplication(self.add, a, b)
        elif isinstance(a, StreamJoin) and isinstance(b, StreamJoin):
            operators.join(self.add, a, b)
        elif isinstance(a, ArbitraryState) and isinstance(b, ArbitraryState):
            # The checkpoint keeps the encoding the old query started with (CF04): the old
            # job's setting decides; one not known statically counts as the stricter UnsafeRow.
            encoding = next((str(s.value).lower() for s in reversed(self.old.config)
                             if s.key == "spark.sql.streaming.stateStore.encodingFormat"),
                            "unsaferow")
            operators.arbitrary_state(self.add, a, b,
                                      encoding if encoding in ("avro", "unsaferow")
                                      else "unsaferow")

    # -- stateless parts ----------------------------------------------------------------------

    def watermarks(self) -> None:
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

    def filters_and_projections(self) -> None:
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

    def retyped(self, old_cols: tuple[str, ...] | None, new_cols: tuple[str, ...] | None,
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

    def foreach(self, old: ForeachCode, new: ForeachCode) -> None:
        """What a foreach/foreachBatch function writes, where both versions' were read; else,
        or when only code around the writes changed, that its code changed (SK07)."""
        made = _made(old), _made(new)
        before, after = (None if m is None else tuple(replace(w, data=()) for w in m)
                         for m in made)
        if before is not None and after is not None and before != after:
            removed = [str(w) for w in before if w not in after]
            added = [str(w) for w in after if w not in before]
            if not removed and not added:  # the same writes, in another order or number
                removed, added = [str(w) for w in before], [str(w) for w in after]
            self.add("sink.foreach_writes", f"what {new.function} writes",
                     "; ".join(removed) or "nothing", "; ".join(added) or "nothing",
                     old.loc, new.loc)
        elif made[0] is not None and made[1] is not None and self.foreach_data(
                made[0], made[1], new.function, old.loc, new.loc):
            pass
        elif old.fingerprint != new.fingerprint and old.function == new.function:
            self.add("sink.foreach_code", f"the code of {new.function}", old.function,
                     new.function, old.loc, new.loc)

    def foreach_data(self, before: tuple[BatchWrite, ...], after: tuple[BatchWrite, ...],
                     function: str, old_loc: Loc, new_loc: Loc) -> bool:
        """The same writes, each of other data: other columns, rows picked otherwise (a
        deduplication, a join), another query; rows kept by another predicate are not."""
        found = False
        for a, b in zip(before, after, strict=True):
            x, y = (tuple(s for s in w.data if s.effect in WRITTEN_DATA) for w in (a, b))
            if x == y:
                continue
            removed = tuple(s for s in x if s not in y)
            added = tuple(s for s in y if s not in x)
            if not removed and not added:  # the same steps, in another order or number
                removed, added = x, y
            where = b.target if b.kind == "call" else " ".join(filter(None, (b.kind, b.target)))
            self.add("sink.foreach_data", f"what {function} writes ({where})",
                     _steps_text(removed, x), _steps_text(added, y), old_loc, new_loc,
                     effects=",".join(sorted({s.effect for s in (*removed, *added)})))
            found = True
        return found

    def sink(self) -> None:
        old, new = self.old.sink, self.new.sink
        old_kind, new_kind = sink_kind(old.format), sink_kind(new.format)
        if old.format != new.format:
            known = "other" not in (old_kind, new_kind)
            same = old.target is not None and same_path(old.target, new.target)
            self.add("sink.format", "the sink", old.format, new.format, old.loc, new.loc,
                     old_kind=old_kind, new_kind=new_kind, known="true" if known else "false",
                     same_target="true" if same else "false")
        elif not same_path(old.target, new.target):
            kind = {"file": "sink.path", "kafka": "sink.topic", "foreach": "sink.foreach_code"
                    }.get(new_kind, "sink.table")
            self.add(kind, f"where the {new.format} sink writes", old.target, new.target,
                     old.loc, new.loc, sink=new_kind)
        if old.foreach and new.foreach:
            self.foreach(old.foreach, new.foreach)
        if old.format == new.format:
            self.sink_options(new_kind)
            if old.partition_by != new.partition_by:
                clustered = bool(old.partition_by) and old_kind == new_kind and any(
                    key == "clusterBy" for key, _ in new.options)
                self.add("sink.partition_by", "the sink's partition columns", old.partition_by,
                         new.partition_by, old.loc, new.loc, sink=new_kind,
                         clustered=str(clustered).lower())
        if (old.output_mode or "append") != (new.output_mode or "append"):
            watermark = any(isinstance(o, Watermark)
                            for o in (*self.old.operators, *self.new.operators))
            modes = {"old_mode": str(old.output_mode or "append").lower(),
                     "new_mode": str(new.output_mode or "append").lower()}
            # A mode known only at run time is judged by its rule only where the query is
            # certainly stateless (read whole): code not followed may hold state.
            known = is_known(old.output_mode) and is_known(new.output_mode)
            self.add("output_mode", "the output mode", old.output_mode or "append",
                     new.output_mode or "append", old.output_mode_loc or old.loc,
                     new.output_mode_loc or new.loc, watermark="true" if watermark else "false",
                     stateful=self.stateful if known else self.certainly_stateful(),
                     **{k: v for k, v in modes.items() if v in OUTPUT_MODES})
        if normalized(old.trigger) != normalized(new.trigger):
            kinds = (old.trigger[0], new.trigger[0])
            self.add("trigger", "the trigger", trigger_text(old.trigger),
                     trigger_text(new.trigger),
                     old.trigger_loc or old.loc, new.trigger_loc or new.loc,
                     continuous="true" if "continuous" in kinds else "false",
                     real_time="true" if "realTime" in kinds else "false",
                     checkpoint_v1=checkpoint_v1(self.old, self.new))
        if old.query_name != new.query_name and same_path(old.checkpoint, new.checkpoint):
            self.add("query.name", "the query name", old.query_name, new.query_name, old.loc,
                     new.loc)

    def sink_options(self, new_kind: str) -> None:
        """The options of a sink of the same format on both sides."""
        old, new = self.old.sink, self.new.sink
        for key in _keys_of(old.options, new.options):
            target = key.lower() in ("path", "topic", "table")
            if target and (old.target is not None or new.target is not None):
                continue  # compared as the target, in `sink`
            a, b = option(old.options, key), option(new.options, key)
            if target and same_path(a, b):
                continue
            if a != b and target:  # where it writes, though not read as the target
                kind = {"file": "sink.path", "kafka": "sink.topic"}.get(new_kind, "sink.table")
                self.add(kind, f"where the {new.format} sink writes (`{key}`)", a, b,
                         old.loc, new.loc, sink=new_kind)
            elif a != b:
                # An option no verdict depends on the value of is judged whatever it is;
                # a `**dict` only where neither version's may hold another key.
                free = all(v is None or sink_value_free(key, v) for v in (a, b))
                self.add("sink.option", f"the sink option `{key}`", a, b, old.loc, new.loc,
                         structural=free)

    def config(self) -> None:
        old = {s.key: s for s in self.old.config}
        new = {s.key: s for s in self.new.config}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            a_value = a.value if a else "(Spark's default)"
            b_value = b.value if b else "(Spark's default)"
            if a_value != b_value:
                self.add("config.changed", f"the session setting `{key}`", a_value, b_value,
                         a.loc if a else None, b.loc if b else None, key=key,
                         stateful=self.certainly_stateful())

    def certainly_stateful(self) -> str:
        """"false" only when both queries were read whole: code streamlint did not follow
        (an imported transform, an unmodelled method) may hold state it cannot see. A branch
        of a run-time fork read as data, without state, hides none."""
        if self.stateful == "true":
            return "true"
        read_whole = all(forks.stateless_notes(q.unresolved) for q in (self.old, self.new))
        return "false" if read_whole else "unknown"


def compare_queries(old: Query, new: Query, changed_modules: frozenset[str] = frozenset()
                    ) -> list[Change]:
    """The changes between two versions of a query; `changed_modules` are the repository's
    modules (root-relative paths) whose text differs between the two versions."""
    return _Differ(old, new, changed_modules).run()


# -- helpers -------------------------------------------------------------------------------
