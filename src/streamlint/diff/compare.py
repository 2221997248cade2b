"""Compare two query shapes into a list of changes, each a kind with old and new values.

The diff states facts only ("the grouping keys changed"); whether a change is safe is the
rules' business (`streamlint.rules`), so the matrix stays data.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from streamlint.diff.values import undecidable
from streamlint.model import (
    Aggregation,
    ArbitraryState,
    Deduplication,
    JobFile,
    Loc,
    Operator,
    Query,
    Source,
    StreamJoin,
    Watermark,
    is_known,
    option,
    show,
)
from streamlint.records import factory, record

FILE_SINKS = {"parquet", "json", "csv", "orc", "text", "avro"}

# Every kind of change the diff reports; each has at least one rule (tested), and a rule
# naming a kind that is not here is refused when the rules load.
CHANGE_KINDS = frozenset({
    "query.checkpoint", "query.name", "query.added", "query.removed", "unresolved", "unseen",
    "query.moved", "query.shared_checkpoint", "query.volatile_checkpoint",
    "source.added", "source.removed", "source.reordered", "source.type", "source.identity",
    "source.rate_limit", "source.option", "source.schema", "source.name",
    "stateful.added", "stateful.removed", "stateful.replaced",
    "agg.method", "agg.keys", "agg.window", "agg.aggregates", "agg.function", "agg.input",
    "agg.alias", "agg.input_type", "dedup.kind", "dedup.keys",
    "join.type", "join.keys", "join.condition", "join.input",
    "state.api", "state.keys", "state.schema", "state.timeout", "state.output_mode",
    "state.output_schema", "state.function",
    "watermark.added", "watermark.removed", "watermark.column", "watermark.delay",
    "filter.changed", "projection.same_columns", "projection.columns", "static_join.changed",
    "sink.format", "sink.path", "sink.topic", "sink.table", "sink.foreach_code", "sink.option",
    "sink.partition_by", "output_mode", "trigger", "config.changed",
    "pipeline.flow_renamed", "pipeline.table_renamed", "pipeline.flow_added",
    "pipeline.flow_removed", "pipeline.expectation", "pipeline.cdc",
})
# Changes about an operator or source being there at all: their verdict does not depend on
# the (possibly unresolved) details of what was added or removed.
STRUCTURAL = {
    "source.added", "source.removed", "source.reordered", "stateful.added", "stateful.removed",
    "stateful.replaced", "agg.method", "dedup.kind", "state.api", "query.added",
    "query.removed", "pipeline.flow_renamed", "pipeline.table_renamed", "pipeline.flow_added",
    "pipeline.flow_removed",
}
# What a deliberate reset (a new checkpoint with explicit starting positions) leaves to judge:
# the sink the new query writes into is the same table, topic or folder as before.
STILL_MATTERS_AFTER_RESET = frozenset({
    "query.checkpoint", "unresolved", "sink.format", "sink.path", "sink.topic", "sink.table",
    "sink.foreach_code", "sink.option", "sink.partition_by", "output_mode",
    "projection.columns",
})
# The note the extractor leaves for a DataFrame built by code in another module.
EXTERNAL_NOTE = "which streamlint cannot follow"


class Code(str):
    """Text rendered from the job's code (keys, aggregates, conditions): shown as is, where
    a plain string value (a topic, a path) is shown quoted."""


@record
class Change:
    """One difference between two query shapes, before any verdict."""

    kind: str
    subject: str  # what changed, in words: "the Kafka topic", "grouping keys", ...
    old: Any
    new: Any
    old_loc: Loc | None
    new_loc: Loc | None
    query: str
    facts: dict[str, str] = factory(dict)  # type: ignore[assignment]


def sink_kind(fmt: Any) -> str:
    if not isinstance(fmt, str):
        return "unknown"
    if fmt in FILE_SINKS:
        return "file"
    if fmt in ("foreach", "foreachBatch"):
        return "foreach"
    return fmt


class _Differ:
    def __init__(self, old: Query, new: Query, changed_modules: frozenset[str] = frozenset()
                 ) -> None:
        self.old, self.new = old, new
        self.changed_modules = changed_modules
        self.query = new.label
        self.changes: list[Change] = []
        self.stateful = "true" if (old.stateful or new.stateful) else "false"

    def add(self, kind: str, subject: str, old: Any, new: Any, old_loc: Loc | None,
            new_loc: Loc | None, structural: bool = False, **facts: str) -> None:
        """Record a change. A *structural* change (an operator or source added, removed or
        replaced) is judged whatever its unresolved details; any other change whose value we
        could not resolve becomes a question for a human: never a guess."""
        if not structural and kind not in STRUCTURAL and undecidable(old, new):
            # Never guess: a change we cannot tell is one is a question for a human.
            facts = {"about": kind}
            kind = "unresolved"
        facts.setdefault("stateful", self.stateful)
        self.changes.append(Change(kind, subject, old, new, old_loc, new_loc, self.query, facts))

    def run(self) -> list[Change]:
        self.checkpoint()
        self.unresolved()
        self.sources()
        self.stateful_operators()
        self.watermarks()
        self.filters_and_projections()
        self.sink()
        self.config()
        if any(c.kind == "query.checkpoint" and c.facts.get("reset") == "explicit"
               for c in self.changes):
            # A fresh checkpoint carries no state, offsets or settings from the old one:
            # only what the new query does to its sink (and what could not be read) remains.
            return [c for c in self.changes if c.kind in STILL_MATTERS_AFTER_RESET]
        return self.changes

    # -- query level ------------------------------------------------------------------------

    def checkpoint(self) -> None:
        old, new = self.old.sink, self.new.sink
        if old.checkpoint != new.checkpoint:
            self.add("query.checkpoint", "checkpointLocation", old.checkpoint, new.checkpoint,
                     old.checkpoint_loc or old.loc, new.checkpoint_loc or new.loc,
                     reset="explicit" if _deliberate_reset(self.old, self.new) else "no")

    def unresolved(self) -> None:
        """Notes on code streamlint could not read, when they changed. A note written the same
        in both versions is the same code with the same inputs: code outside the repository
        (a package, a run-time value) that did not change here. One inside a module of the
        repository whose text changed is still asked about."""
        old_notes = {text: loc for text, loc in self.old.unresolved}
        new_notes = {text: loc for text, loc in self.new.unresolved}
        for text, loc in new_notes.items():
            if text not in old_notes or (EXTERNAL_NOTE in text and self._in_changed_module(
                    loc, old_notes[text])):
                self.add("unresolved", text, None, text, old_notes.get(text), loc, about="code")
        for text, loc in old_notes.items():
            if text not in new_notes:
                self.add("unresolved", text, text, None, loc, None, about="code")

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
                         tuple(_describe(s) for s in old), tuple(_describe(s) for s in new),
                         old[0].loc, new[0].loc, **facts)
                return
            pairs = _align(old, new, key=_source_key)
        for before, after in pairs:
            if before is None and after is not None:
                self.add("source.added", "a streaming source", None, _describe(after), None,
                         after.loc, **facts)
            elif after is None and before is not None:
                self.add("source.removed", "a streaming source", _describe(before), None,
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
            if a != b:
                self.add("source.identity", f"the {fmt} source option `{key}`", a, b, old.loc,
                         new.loc, key=key.lower(), **facts)
        for key in _keys_of(old.rate_limits, new.rate_limits):
            a, b = option(old.rate_limits, key), option(new.rate_limits, key)
            if a != b:
                self.add("source.rate_limit", f"the rate limit `{key}`", a, b, old.loc, new.loc)
        for key in _keys_of(old.options, new.options):
            a, b = option(old.options, key), option(new.options, key)
            if a != b:
                self.add("source.option", f"the {fmt} source option `{key}`", a, b, old.loc,
                         new.loc, key=key.lower())
        if old.schema != new.schema:
            self.add("source.schema", f"the declared schema of the {fmt} source", old.schema,
                     new.schema, old.loc, new.loc)
        if old.name != new.name and facts.get("named") != "true":
            self.add("source.name", "the source name", old.name, new.name, old.loc, new.loc)

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
                    self.add("stateful.replaced", "a stateful operator", _op_name(a),
                             _op_name(b), a.loc, b.loc)
                continue
            for a in old[i1:i2]:
                self.add("stateful.removed", "a stateful operator", _op_name(a), None, a.loc,
                         None)
            for b in new[j1:j2]:
                self.add("stateful.added", "a stateful operator", None, _op_name(b), None, b.loc)

    def operator_pair(self, a: Operator, b: Operator) -> None:
        if isinstance(a, Aggregation) and isinstance(b, Aggregation):
            self.aggregation(a, b)
        elif isinstance(a, Deduplication) and isinstance(b, Deduplication):
            if a.within_watermark != b.within_watermark:
                self.add("dedup.kind", "the deduplication operator", a.method, b.method, a.loc,
                         b.loc)
            elif a.keys != b.keys:
                self.add("dedup.keys", "the deduplication keys", _cols(a.keys), _cols(b.keys),
                         a.loc, b.loc)
            changed = _redefined(a.inputs, b.inputs)
            if changed and a.keys == b.keys:
                # Same key names, other values: new rows are compared with keys kept the old way.
                self.add("dedup.keys", "how the deduplication keys are computed",
                         Code("; ".join(changed[0])), Code("; ".join(changed[1])), a.loc, b.loc)
        elif isinstance(a, StreamJoin) and isinstance(b, StreamJoin):
            self.join(a, b)
        elif isinstance(a, ArbitraryState) and isinstance(b, ArbitraryState):
            self.arbitrary_state(a, b)

    def aggregation(self, a: Aggregation, b: Aggregation) -> None:
        if a.method != b.method:
            self.add("agg.method", "the grouping method", a.method, b.method, a.loc, b.loc)
        if _intervals(a.keys) != _intervals(b.keys):
            if _windows_only(a.keys, b.keys):
                self.add("agg.window", "the window", _cols(a.keys), _cols(b.keys), a.loc, b.loc)
            else:
                self.add("agg.keys", "the grouping keys", _cols(a.keys), _cols(b.keys), a.loc,
                         b.loc)
        old, new = a.aggregates, b.aggregates
        if len(old) != len(new):
            self.add("agg.aggregates", "the aggregate functions", _aggs(old), _aggs(new),
                     a.loc, b.loc, structural=True)
        else:
            for x, y in zip(old, new, strict=True):
                if x.function != y.function and x.args == y.args:
                    self.add("agg.function", f"the aggregate `{_agg(x)}`", _agg(x), _agg(y),
                             a.loc, b.loc)
                elif x.function == y.function and x.args != y.args:
                    self.add("agg.input", f"the input of `{x.function}`", _agg(x), _agg(y),
                             a.loc, b.loc)
                elif (x.function, x.args) != (y.function, y.args):
                    self.add("agg.aggregates", "the aggregate functions", _agg(x), _agg(y),
                             a.loc, b.loc)
                elif x.alias != y.alias:
                    self.add("agg.alias", f"the name of `{x.function}`", x.alias, y.alias,
                             a.loc, b.loc)
        changed = _redefined(a.inputs, b.inputs)
        if changed and a.keys == b.keys:
            keys = {name for key in a.keys for name in _COL_RE.findall(key)}
            for before, after in zip(*changed, strict=True):
                name = before.split(" = ", 1)[0]
                if name in keys:  # a grouping key computed differently is another key
                    self.add("agg.keys", f"how the grouping key `{name}` is computed",
                             Code(before), Code(after), a.loc, b.loc)
                    continue
                old_type, new_type = _type_of(before), _type_of(after)
                typed = "true" if old_type and new_type and old_type != new_type else "false"
                self.add("agg.input_type", f"how the aggregated column `{name}` is computed",
                         Code(before), Code(after), a.loc, b.loc, typed=typed)

    def join(self, a: StreamJoin, b: StreamJoin) -> None:
        if a.how != b.how:
            inner = "true" if "inner" in (a.how, b.how) else "false"
            self.add("join.type", "the join type", a.how, b.how, a.loc, b.loc,
                     old_how=str(a.how), new_how=str(b.how), inner=inner)
        old_keys = set(a.keys) | _equi_pairs(a.condition)
        new_keys = set(b.keys) | _equi_pairs(b.condition)
        if old_keys != new_keys:
            self.add("join.keys", "the equi-join keys", _cols(tuple(sorted(old_keys))),
                     _cols(tuple(sorted(new_keys))), a.loc, b.loc)
        elif _condition_key(a.condition) != _condition_key(b.condition):
            self.add("join.condition", "the join condition", Code(_col(a.condition or "")),
                     Code(_col(b.condition or "")), a.loc, b.loc)
        changed = _redefined(a.inputs, b.inputs)
        if changed and old_keys == new_keys:
            self.add("join.input", "how the join's input columns are computed", changed[0],
                     changed[1], a.loc, b.loc)

    def arbitrary_state(self, a: ArbitraryState, b: ArbitraryState) -> None:
        if a.api != b.api:
            self.add("state.api", "the stateful API", a.api, b.api, a.loc, b.loc)
            return
        if a.keys != b.keys:
            self.add("state.keys", "the grouping keys", _cols(a.keys), _cols(b.keys), a.loc,
                     b.loc)
        if _variables(a.state_schema) != _variables(b.state_schema):
            encoding = next((str(s.value).lower() for s in reversed(self.new.config)
                             if s.key == "spark.sql.streaming.stateStore.encodingFormat"),
                            "unsaferow")
            self.add("state.schema", "the state schema", a.state_schema, b.state_schema, a.loc,
                     b.loc, api=a.api, encoding=encoding)
        if a.timeout != b.timeout:
            self.add("state.timeout", "the timeout", a.timeout, b.timeout, a.loc, b.loc)
        if a.output_mode != b.output_mode:
            self.add("state.output_mode", "the operator's output mode", a.output_mode,
                     b.output_mode, a.loc, b.loc)
        if a.output_schema != b.output_schema:
            self.add("state.output_schema", "the output schema", a.output_schema,
                     b.output_schema, a.loc, b.loc)
        if a.function != b.function:
            self.add("state.function", "the state function", a.function, b.function, a.loc,
                     b.loc)

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
            if _intervals(a.delay) != _intervals(b.delay):
                self.add("watermark.delay", f"the watermark delay on {_col(b.column)}", a.delay,
                         b.delay, a.loc, b.loc)
        for a, b in zip(old, new, strict=False):
            if a.column != b.column:
                self.add("watermark.column", "the watermark column", Code(_col(a.column)),
                         Code(_col(b.column)), a.loc, b.loc)
            if _intervals(a.delay) != _intervals(b.delay):
                self.add("watermark.delay", f"the watermark delay on {_col(b.column)}", a.delay,
                         b.delay, a.loc, b.loc)
        for a in old[len(new):]:
            self.add("watermark.removed", "a watermark", Code(f"{_col(a.column)}, {a.delay}"), None,
                     a.loc, None)
        for b in new[len(old):]:
            self.add("watermark.added", "a watermark", None, Code(f"{_col(b.column)}, {b.delay}"),
                     None, b.loc)

    def filters_and_projections(self) -> None:
        old_filters = [o for o in self.old.operators if o.kind == "filter"]
        new_filters = [o for o in self.new.operators if o.kind == "filter"]
        old_text = [f.condition for f in old_filters]  # type: ignore[union-attr]
        new_text = [f.condition for f in new_filters]  # type: ignore[union-attr]
        if sorted(old_text) != sorted(new_text):
            removed = [f for f in old_filters if f.condition not in new_text]  # type: ignore
            added = [f for f in new_filters if f.condition not in old_text]  # type: ignore
            self.add(
                "filter.changed", "the filters",
                Code("; ".join(_col(f.condition) for f in removed)) or None,  # type: ignore
                Code("; ".join(_col(f.condition) for f in added)) or None,  # type: ignore
                removed[0].loc if removed else None, added[0].loc if added else None,
            )
        old_proj = [o for o in self.old.operators if o.kind == "projection"]
        new_proj = [o for o in self.new.operators if o.kind == "projection"]
        old_cols, new_cols = self.old.output_columns, self.new.output_columns
        projections_changed = [p.exprs for p in old_proj] != [p.exprs for p in new_proj]  # type: ignore
        columns_changed = old_cols is not None and new_cols is not None and old_cols != new_cols
        if projections_changed or columns_changed:
            # Point at the first projection that differs; if none does (an aggregate renamed),
            # at the sinks, where the new columns arrive.
            first = next((i for i, (x, y) in enumerate(zip(old_proj, new_proj, strict=False))
                          if x.exprs != y.exprs), min(len(old_proj), len(new_proj)))  # type: ignore
            loc_a = old_proj[first].loc if first < len(old_proj) else self.old.sink.loc
            loc_b = new_proj[first].loc if first < len(new_proj) else self.new.sink.loc
            if old_cols is not None and old_cols == new_cols:
                self.add("projection.same_columns", "the projections", _proj(old_proj),
                         _maybe(new_cols), loc_a, loc_b)
            else:
                self.add("projection.columns", "the output columns",
                         _maybe(old_cols), _maybe(new_cols), loc_a, loc_b)
        old_static = [o for o in self.old.operators if o.kind == "static_join"]
        new_static = [o for o in self.new.operators if o.kind == "static_join"]
        if [(o.how, o.on) for o in old_static] != [(o.how, o.on) for o in new_static]:  # type: ignore
            self.add("static_join.changed", "a stream-static join",
                     tuple(o.on for o in old_static) or None,  # type: ignore[union-attr]
                     tuple(o.on for o in new_static) or None,  # type: ignore[union-attr]
                     old_static[0].loc if old_static else None,
                     new_static[0].loc if new_static else None)

    def sink(self) -> None:
        old, new = self.old.sink, self.new.sink
        old_kind, new_kind = sink_kind(old.format), sink_kind(new.format)
        if old.format != new.format:
            self.add("sink.format", "the sink", old.format, new.format, old.loc, new.loc,
                     old_kind=old_kind, new_kind=new_kind)
        elif old.target != new.target:
            kind = {"file": "sink.path", "kafka": "sink.topic", "foreach": "sink.foreach_code"
                    }.get(new_kind, "sink.table")
            self.add(kind, f"where the {new.format} sink writes", old.target, new.target,
                     old.loc, new.loc, sink=new_kind)
        if (old.foreach and new.foreach and old.foreach.fingerprint != new.foreach.fingerprint
                and old.foreach.function == new.foreach.function):
            self.add("sink.foreach_code", f"the code of {new.foreach.function}",
                     old.foreach.function, new.foreach.function, old.foreach.loc,
                     new.foreach.loc)
        if old.format == new.format:
            for key in _keys_of(old.options, new.options):
                if key.lower() in ("path", "topic", "table"):
                    continue
                a, b = option(old.options, key), option(new.options, key)
                if a != b:
                    self.add("sink.option", f"the sink option `{key}`", a, b, old.loc, new.loc)
            if old.partition_by != new.partition_by:
                self.add("sink.partition_by", "the sink's partition columns", old.partition_by,
                         new.partition_by, old.loc, new.loc, sink=new_kind)
        if (old.output_mode or "append") != (new.output_mode or "append"):
            self.add("output_mode", "the output mode", old.output_mode or "append",
                     new.output_mode or "append", old.output_mode_loc or old.loc,
                     new.output_mode_loc or new.loc)
        if _intervals(old.trigger) != _intervals(new.trigger):
            continuous = "true" if "continuous" in (old.trigger[0], new.trigger[0]) else "false"
            self.add("trigger", "the trigger", _trigger(old.trigger), _trigger(new.trigger),
                     old.trigger_loc or old.loc, new.trigger_loc or new.loc,
                     continuous=continuous)
        if old.query_name != new.query_name and old.checkpoint == new.checkpoint:
            self.add("query.name", "the query name", old.query_name, new.query_name, old.loc,
                     new.loc)

    def config(self) -> None:
        old = {s.key: s for s in self.old.config}
        new = {s.key: s for s in self.new.config}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            a_value = a.value if a else "(Spark's default)"
            b_value = b.value if b else "(Spark's default)"
            if a_value != b_value:
                self.add("config.changed", f"the session setting `{key}`", a_value, b_value,
                         a.loc if a else None, b.loc if b else None, key=key)


def compare_queries(old: Query, new: Query, changed_modules: frozenset[str] = frozenset()
                    ) -> list[Change]:
    """The changes between two versions of a query; `changed_modules` are the repository's
    modules (root-relative paths) whose text differs between the two versions."""
    return _Differ(old, new, changed_modules).run()


def changed_modules(old: JobFile, new: JobFile) -> frozenset[str]:
    """The modules followed on one side only, or with different text on each."""
    return frozenset(path for path, _ in set(old.modules) ^ set(new.modules))


def query_added(new: Query) -> Change:
    return Change("query.added", "a streaming query", None, new.label, None, new.sink.loc,
                  new.label, {"stateful": "true" if new.stateful else "false"})


def query_removed(old: Query) -> Change:
    return Change("query.removed", "a streaming query", old.label, None, old.sink.loc, None,
                  old.label, {"stateful": "true" if old.stateful else "false"})


def unseen_changes(old: JobFile, new: JobFile) -> list[Change]:
    """What streamlint could not read in either version, one change each (never dropped).

    Two versions that are the same code (the job and every module it was followed into)
    cannot differ there; anything else unread may hide a changed query.
    """
    if old.text == new.text and old.modules == new.modules:
        return []
    changes: list[Change] = []
    olds = {(u.about, u.what): u for u in old.unseen}
    news = {(u.about, u.what): u for u in new.unseen}
    for key, item in news.items():
        before = olds.get(key)
        if before is not None and item.fingerprint and before.fingerprint == item.fingerprint:
            continue  # the same unfollowed code handed the same stream: nothing changed here
        changes.append(Change("unseen", item.what, None, None,
                              before.loc if before else None, item.loc, "(not read)",
                              {"about": item.about, "side": "new"}))
    for key, item in olds.items():
        if key not in news:
            changes.append(Change("unseen", item.what, None, None, item.loc, None,
                                  "(not read)", {"about": item.about, "side": "old"}))
    return changes


# -- rendering helpers ----------------------------------------------------------------------

_COL_RE = re.compile(r"col\(([^()]*)\)")


def _col(text: str) -> str:
    return _COL_RE.sub(r"\1", text)


def _cols(texts: tuple[str, ...] | None) -> str:
    return Code("all columns" if texts is None else ", ".join(_col(t) for t in texts) or "(none)")


def _agg(call: Any) -> str:
    text = f"{call.function}({', '.join(_col(a) for a in call.args)})"
    return Code(f"{text} AS {call.alias}" if call.alias else text)


def _aggs(calls: tuple[Any, ...]) -> str:
    return Code(", ".join(_agg(c) for c in calls) or "(none)")


def _op_name(op: Operator) -> str:
    if isinstance(op, Aggregation):
        return Code(f"{op.method}({_cols(op.keys)}).agg({_aggs(op.aggregates)})")
    if isinstance(op, Deduplication):
        return Code(f"{op.method}({_cols(op.keys)})")
    if isinstance(op, StreamJoin):
        on = _cols(op.keys) if op.keys else _col(op.condition or "")
        return Code(f"{op.how} stream-stream join on {on}")
    if isinstance(op, ArbitraryState):
        return Code(f"{op.api}({op.function})")
    return Code(op.kind)


def _describe(source: Source) -> str:
    identity = ", ".join(f"{k}={show(v)}" for k, v in source.identity)
    return Code(f"{source.format}({identity})" if identity else str(source.format))


_INTERVAL_RE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(microseconds?|milliseconds?|seconds?|secs?|minutes?|mins?"
    r"|hours?|days?|weeks?)\b", re.IGNORECASE)
_MICROS = {"mi": 1, "ms": 1_000, "mil": 1_000, "s": 1_000_000, "m": 60_000_000,
           "h": 3_600_000_000, "d": 86_400_000_000, "w": 604_800_000_000}


def _intervals(value: Any) -> Any:
    """The same value with every duration spelled one way: "1 hour" is "60 minutes" to Spark
    (CalendarInterval), so only a different length is a change."""
    if isinstance(value, str):
        return _INTERVAL_RE.sub(lambda m: f"{_micros(m.group(1), m.group(2))}us", value)
    if isinstance(value, tuple):
        return tuple(_intervals(v) for v in value)
    return value


def _micros(amount: str, unit: str) -> int:
    unit = unit.lower()
    key = ("mi" if unit.startswith("micro") else "mil" if unit.startswith("milli") else unit[0])
    return round(float(amount) * _MICROS[key])


def _align(old: tuple, new: tuple, key: Any) -> list[tuple[Any, Any]]:
    """Pair equal elements first (so a dropped middle source is named as dropped), then the
    remaining ones by position within each differing stretch."""
    matcher = difflib.SequenceMatcher(a=[repr(key(x)) for x in old],
                                      b=[repr(key(x)) for x in new], autojunk=False)
    pairs: list[tuple[Any, Any]] = []
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        left, right = list(old[i1:i2]), list(new[j1:j2])
        pairs.extend(zip(left, right, strict=False))
        pairs.extend((x, None) for x in left[len(right):])
        pairs.extend((None, y) for y in right[len(left):])
    return pairs


_TYPE_RES = (re.compile(r"^cast\(.* AS ([\w(),]+)\)$"), re.compile(r"^field [^:]+:(\S+)$"))


def _type_of(definition: str) -> str | None:
    """The type a column's definition states outright (a cast, a parsed JSON field)."""
    expression = definition.split(" = ", 1)[-1]
    for pattern in _TYPE_RES:
        match = pattern.match(expression)
        if match:
            return match.group(1)
    return None


def _variables(schema: Any) -> Any:
    """transformWithState keeps each state variable in its own column family, by name: their
    order in `init` does not matter."""
    return tuple(sorted(schema, key=repr)) if isinstance(schema, tuple) else schema


def _redefined(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[tuple, tuple] | None:
    """Input columns present in both versions but computed by a different expression."""
    before = dict(item.split(" = ", 1) for item in old)
    after = dict(item.split(" = ", 1) for item in new)
    names = sorted(n for n in before.keys() & after.keys() if before[n] != after[n])
    if not names:
        return None
    return (tuple(f"{n} = {before[n]}" for n in names), tuple(f"{n} = {after[n]}" for n in names))


def _source_key(source: Source) -> tuple:
    return (source.format, source.identity)


def _keys_of(a: tuple, b: tuple) -> list[str]:
    seen: dict[str, None] = {}
    for key, _ in (*a, *b):
        if str(key).lower() not in {k.lower() for k in seen}:
            seen[str(key)] = None
    return list(seen)


def _windows_only(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if len(a) != len(b):
        return False
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return bool(differing) and all(
        x.startswith(("window(", "session_window(")) and y.split(",")[0] == x.split(",")[0]
        for x, y in differing
    )


_EQUI_RE = re.compile(r"\(col\(([\w.]+)\) == col\(([\w.]+)\)\)")
_SQL_EQUI_RE = re.compile(r"([A-Za-z_][\w.]*)\s*=\s*([A-Za-z_][\w.]*)")


_QUALIFIED_RE = re.compile(r"\b[A-Za-z_]\w*\.([A-Za-z_]\w*)")
_SQL_AND_RE = re.compile(r"\s+AND\s+")
_SQL_EQ_RE = re.compile(r"^([\w.]+)\s*=\s*([\w.]+)$")


def _condition_key(condition: str | None) -> Any:
    """A SQL join condition up to spelling: conjuncts in any order, `a = b` as `b = a`,
    DataFrame alias qualifiers dropped, durations in one unit."""
    if not condition or not condition.startswith("expr(") or " OR " in condition:
        return _intervals(_QUALIFIED_RE.sub(r"\1", condition or ""))
    conjuncts = []
    for part in _SQL_AND_RE.split(_QUALIFIED_RE.sub(r"\1", condition[len("expr("):-1])):
        match = _SQL_EQ_RE.match(part.strip())
        if match:
            sides = sorted(side.rsplit(".", 1)[-1] for side in match.groups())
            part = f"{sides[0]} = {sides[1]}"
        conjuncts.append(_intervals(part.strip()))
    return tuple(sorted(conjuncts))


def _equi_pairs(condition: str | None) -> set[str]:
    if not condition:
        return set()
    pairs = _EQUI_RE.findall(condition)
    if condition.startswith("expr("):
        pairs += _SQL_EQUI_RE.findall(condition)
    # `l.imp_ad` and `i.imp_ad` are one column: DataFrame aliases only qualify the reference.
    names = [(a.rsplit(".", 1)[-1], b.rsplit(".", 1)[-1]) for a, b in pairs]
    return {f"col({a}) = col({b})" if a < b else f"col({b}) = col({a})" for a, b in names}


def _proj(ops: list[Any]) -> str:
    steps = (f"{p.method}({', '.join(_col(e) for e in p.exprs)})" for p in ops)
    return Code("; ".join(steps) or "(none)")


def _maybe(cols: tuple[str, ...] | None) -> str:
    return Code("unknown" if cols is None else ", ".join(cols))


def _trigger(trigger: tuple[str, Any]) -> str:
    kind, value = trigger
    if kind == "default":
        return Code("default (micro-batch as fast as possible)")
    if value is True:
        return Code(f"{kind}=True")
    return Code(f"{kind}={show(value)}")


# Options that pin where a fresh query starts reading: a position, not a policy.
START_OPTIONS = ("startingOffsets", "startingOffsetsByTimestamp", "startingTimestamp",
                 "startingVersion")
START_POLICIES = ("latest", "earliest")


def _start(source: Source) -> tuple:
    return tuple((key, option(source.options, key)) for key in START_OPTIONS
                 if option(source.options, key) is not None)


def _deliberate_reset(old: Query, new: Query) -> bool:
    """A new checkpoint whose query is told where to start: every streaming source of the new
    query names an explicit position (Kafka offsets as JSON, a Delta version or timestamp)
    set in this very change. That is the documented way to move a checkpoint without
    skipping or re-reading data, so it is a decision to note, not an accident to stop."""
    streaming = [s for s in new.sources if s.streaming]
    if not streaming:
        return False
    for source in streaming:
        start = _start(source)
        if not start or not all(is_known(v) for _, v in start):
            return False
        if all(str(v).strip().lower() in START_POLICIES for _, v in start):
            return False
    before = [_start(s) for s in old.sources if s.streaming]
    return before != [_start(s) for s in streaming]

