"""The sinks of two versions of a query compared: the sink's format, where it writes, its
options and partition columns, the output mode, the trigger and the query name; for a
foreach/foreachBatch sink, what its function writes (the writes, and the data of each).

Functions of the differ (`diff.compare._Differ`, bound there as its methods): each reports
through `self.add`, so the verdicts stay in the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamlint.diff.evolution import checkpoint_v1
from streamlint.diff.render import Code, trigger_text
from streamlint.diff.shapes import _keys_of, sink_kind
from streamlint.model import (
    BatchWrite,
    ForeachCode,
    Loc,
    Sink,
    Watermark,
    WrittenStep,
    is_known,
    option,
)
from streamlint.model.durations import normalized
from streamlint.model.paths import same_path
from streamlint.model.records import replace
from streamlint.rulebook.change import OUTPUT_MODES
from streamlint.rulebook.options import sink_value_free

if TYPE_CHECKING:
    from streamlint.diff.compare import _Differ


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


def foreach(self: _Differ, old: ForeachCode, new: ForeachCode) -> None:
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


def foreach_data(self: _Differ, before: tuple[BatchWrite, ...], after: tuple[BatchWrite, ...],
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


def sink(self: _Differ) -> None:
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
                 _target_at(old), _target_at(new), sink=new_kind)
    if old.foreach and new.foreach:
        self.foreach(old.foreach, new.foreach)
    if old.format == new.format:
        self.sink_options(new_kind)
        if old.partition_by != new.partition_by:
            clustered = bool(old.partition_by) and old_kind == new_kind and any(
                key == "clusterBy" for key, _ in new.options)
            self.add("sink.partition_by", "the sink's partition columns", old.partition_by,
                     new.partition_by, old.partition_loc or old.loc,
                     new.partition_loc or new.loc, sink=new_kind,
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


def _target_at(sink: Sink) -> Loc:
    """Where the sink's path, table or topic was given, else where the query starts."""
    return next((loc for key in ("path", "table", "topic")
                 if (loc := option(sink.option_locs, key)) is not None), sink.loc)


def sink_options(self: _Differ, new_kind: str) -> None:
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
                     old.at(key), new.at(key), sink=new_kind)
        elif a != b:
            # An option no verdict depends on the value of is judged whatever it is;
            # a `**dict` only where neither version's may hold another key.
            free = all(v is None or sink_value_free(key, v) for v in (a, b))
            self.add("sink.option", f"the sink option `{key}`", a, b, old.placed(key, new),
                     new.placed(key, old), structural=free)
