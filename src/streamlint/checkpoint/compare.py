"""Compare new job code with what a checkpoint actually holds (`diff --checkpoint PATH NEW`).

The checkpoint is the old side: its offsets name the sources (count, order, kind, Kafka
topics, file directories), `state/` names the stateful operators (kind and order) and their
key/value schemas, and the offsets file pins session settings. Changes are judged by the same
rules as `diff OLD NEW` where a rule describes the same restart behaviour; what only a
checkpoint can show gets its own finding (CK codes).
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from streamlint.checkpoint.buffers import canonical, read_buffers
from streamlint.checkpoint.file_source_log import latest_file_path, same_directory
from streamlint.checkpoint.fs import CheckpointFS
from streamlint.checkpoint.model import Checkpoint, SourceOffset, StatefulOperator
from streamlint.checkpoint.operators import operator_kind
from streamlint.checkpoint.schema_compat import schema_problems
from streamlint.checkpoint.source_kinds import kafka_offsets
from streamlint.diff.compare import Change, Code
from streamlint.extract.pyspark_api import FILE_FORMATS
from streamlint.model import AggCall, Aggregation, Loc, Query, Source, is_known, option
from streamlint.model.expr import WINDOW_FUNCTIONS, Call, output_name, render
from streamlint.rulebook.matrix import Finding, judge, overriding, own_finding
from streamlint.rulebook.rule import Runtime

# What kind of offset each source format writes into offsets/N.
RAISED_BY = "diff --checkpoint"  # the own rules of this comparison (rules/checkpoint.toml)
OFFSET_KIND_OF_FORMAT = {"kafka": "kafka", "rate": "number", "socket": "number",
                         "delta": "delta", **{f: "file" for f in FILE_FORMATS}}


class CheckpointComparison:
    """Collects findings for one query of the new job against one checkpoint."""

    def __init__(self, checkpoint: Checkpoint, fs: CheckpointFS, root: str, query: Query,
                 version: Runtime) -> None:
        self.checkpoint, self.fs, self.root = checkpoint, fs, root
        self.query, self.version = query, version
        self.findings: list[Finding] = []
        entry = checkpoint.last_committed or checkpoint.latest_offsets
        self.entry = entry
        self.offsets_path = entry.path if entry else f"{checkpoint.path}/offsets"

    def run(self) -> list[Finding]:
        self.sources()
        self.operators()
        self.config()
        return self.findings

    # -- helpers ---------------------------------------------------------------------------

    def change(self, kind: str, subject: str, old: Any, new: Any, old_loc: Loc | None,
               new_loc: Loc | None, **facts: str) -> None:
        facts.setdefault("stateful", "true" if self.query.stateful else "false")
        self.findings.append(judge(Change(kind, subject, old, new, old_loc, new_loc,
                                          self.query.label, facts), self.version))

    def source_loc(self, source: SourceOffset) -> Loc:
        return Loc(self.offsets_path, source.index + 3, 0)

    # -- sources ---------------------------------------------------------------------------

    def sources(self) -> None:
        if self.entry is None:
            return
        stored = list(self.entry.sources)
        new = [s for s in self.query.sources if s.streaming]
        named = self.entry.version >= 2 and all(isinstance(s.name, str) for s in new)
        if named:
            by_name = {s.name: s for s in stored}
            pairs = [(by_name.get(s.name), s) for s in new]
            pairs += [(s, None) for s in stored if s.name not in {n.name for n in new}]
        else:
            pairs = list(zip(stored, new, strict=False))
            pairs += [(s, None) for s in stored[len(new):]]
            pairs += [(None, s) for s in new[len(stored):]]
        facts = {"named": "true" if named else "false"}
        for old, now in pairs:
            if old is None and now is not None:
                self.change("source.added", "a streaming source", None, _describe(now), None,
                            now.loc, **facts)
            elif now is None and old is not None:
                self.change("source.removed", "a streaming source", _stored(old), None,
                            self.source_loc(old), None, **facts)
            elif old is not None and now is not None:
                self.source_pair(old, now, facts)

    def source_pair(self, old: SourceOffset, new: Source, facts: dict[str, str]) -> None:
        fmt = new.format if isinstance(new.format, str) else None
        expected = OFFSET_KIND_OF_FORMAT.get((fmt or "").lower())
        if old.kind == "unreadable":
            self.unreadable_offset(old, fmt, expected)
            return
        if old.kind == "none" or expected is None or old.kind == "json":
            return  # nothing to compare (no offset yet, or a source we cannot tell)
        if old.kind != expected:
            self.change("source.type", "the source format", Code(f"a {old.kind} source"), fmt,
                        self.source_loc(old), new.loc, old_format=old.kind,
                        new_format=str(fmt), **facts)
            return
        if old.kind == "kafka":
            self.kafka_topics(old, new, facts)
        elif old.kind == "file":
            self.file_directory(old, new, facts)

    def unreadable_offset(self, old: SourceOffset, fmt: str | None,
                          expected: str | None) -> None:
        """An offset that is not JSON: Spark's built-in sources parse their offsets as JSON
        and fail the restart on it; another source's own parser decides."""
        shown = old.offset if len(old.offset) <= 60 else old.offset[:57] + "..."
        if expected is not None:
            self.findings.append(own_finding(
                "CK07", self.query.label, self.source_loc(old), None, index=old.index,
                offset=shown, format=fmt))
        else:
            self.cannot_tell(self.source_loc(old), None, f"whether the {fmt or 'unknown'} "
                             f"source #{old.index} can read its offset back ({shown!r} is not "
                             "JSON)")

    def cannot_tell(self, old: Loc | None, new: Loc | None, what: str) -> None:
        self.findings.append(own_finding("CK06", self.query.label, old, new, what=what))

    def kafka_topics(self, old: SourceOffset, new: Source, facts: dict[str, str]) -> None:
        stored = sorted(kafka_offsets(old.offset))
        subscribe = option(new.identity, "subscribe")
        assign = option(new.identity, "assign")
        pattern = option(new.identity, "subscribePattern")
        if isinstance(subscribe, str) and is_known(subscribe):
            topics = sorted(t.strip() for t in subscribe.split(",") if t.strip())
            if topics != stored:
                self.change("source.identity", "the kafka source option `subscribe`",
                            ",".join(stored), ",".join(topics), self.source_loc(old), new.loc,
                            key="subscribe", **facts)
        elif isinstance(assign, str) and is_known(assign):
            try:
                topics = sorted(json.loads(assign))
            except (ValueError, TypeError):
                return
            if topics != stored:
                self.change("source.identity", "the kafka source option `assign`",
                            ",".join(stored), ",".join(topics), self.source_loc(old), new.loc,
                            key="assign", **facts)
        elif isinstance(pattern, str) and is_known(pattern):
            try:
                regex = re.compile(pattern)
            except re.error:
                return
            missing = [t for t in stored if not regex.fullmatch(t)]
            if missing:
                self.change("source.identity", "the kafka source option `subscribePattern`",
                            ",".join(stored), pattern, self.source_loc(old), new.loc,
                            key="subscribepattern", **facts)

    def file_directory(self, old: SourceOffset, new: Source, facts: dict[str, str]) -> None:
        path = option(new.identity, "path")
        if not isinstance(path, str) or not is_known(path):
            return
        recorded = latest_file_path(self.fs, self.root, old.name or str(old.index))
        if recorded is None or same_directory(recorded, path):
            return
        directory = recorded.rsplit("/", 1)[0]
        log = f"{self.checkpoint.path}/sources/{old.name or old.index}"
        self.change("source.identity", f"the {new.format} source path", directory, path,
                    Loc(log, 1, 0), new.loc, key="path", **facts)

    # -- stateful operators ----------------------------------------------------------------

    def operators(self) -> None:
        stored = list(self.checkpoint.operators)
        # Spark numbers stateful operators from the sink down (the operator nearest the sink
        # is state/0), the reverse of the order they are written in a chain.
        new = list(reversed(self.query.stateful))
        matcher = difflib.SequenceMatcher(a=[operator_kind(o.name) for o in stored],
                                          b=[o.kind for o in new], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for old, now in zip(stored[i1:i2], new[j1:j2], strict=True):
                    self.operator_pair(old, now)
                continue
            olds, news = stored[i1:i2], new[j1:j2]
            for k in range(max(len(olds), len(news))):
                old = olds[k] if k < len(olds) else None
                now = news[k] if k < len(news) else None
                if old is not None and now is not None:
                    self.change("stateful.replaced", "a stateful operator", _op(old),
                                Code(now.kind), self.op_loc(old), now.loc)
                elif old is not None:
                    self.change("stateful.removed", "a stateful operator", _op(old), None,
                                self.op_loc(old), None)
                elif now is not None:
                    self.change("stateful.added", "a stateful operator", None,
                                Code(now.kind), None, now.loc)

    def op_loc(self, op: StatefulOperator) -> Loc:
        store = op.stores[0] if op.stores else None
        path = store.schema_path if store and store.schema_path else (
            f"{self.checkpoint.path}/state/{op.id}")
        return Loc(path, 1, 0)

    def operator_pair(self, old: StatefulOperator, new: Any) -> None:
        if isinstance(new, Aggregation):
            self.aggregate_buffers(old, new)
            self.windows(old, new)
        stored_key = _stored_key(old)
        if stored_key is None:
            return
        keys = _new_keys(new)
        if not keys:
            return
        if new.kind == "join":
            if len(keys) != len(stored_key):
                self.change("join.keys", "the equi-join keys",
                            Code(f"{len(stored_key)} key(s) in the checkpoint"),
                            Code(", ".join(keys)),
                            self.op_loc(old), new.loc)
            return
        names = [_key_name(k) for k in keys]
        stored_names = tuple(f.name for f in stored_key)
        kind = {"aggregation": "agg.keys", "deduplication": "dedup.keys"}.get(
            new.kind, "state.keys")
        if len(keys) != len(stored_key) or (
                new.kind in ("aggregation", "deduplication") and None not in names
                and tuple(names) != stored_names):
            shown = ", ".join(n or _shown(k) for n, k in zip(names, keys, strict=True))
            self.change(kind, "the state key", Code(", ".join(stored_names)), Code(shown),
                        self.op_loc(old), new.loc)

    def aggregate_buffers(self, old: StatefulOperator, new: Aggregation) -> None:
        """The stored buffer read along the new aggregates: another number of fields is a
        restart Spark refuses (sum -> avg); names another function wrote are a swap Spark
        accepts (sum -> max); a buffer several functions keep cannot be told apart."""
        store = old.stores[0] if len(old.stores) == 1 else None
        if store is None or len(store.schemas) != 1 or store.schemas[0].value is None or \
                dict(self.entry.conf if self.entry else ()).get(
                    "spark.sql.streaming.aggregation.stateFormatVersion", "2") != "2":
            return  # state format 1 keeps the whole row, not the buffers
        stored = [f.name for f in store.schemas[0].value]
        calls = _distinct(new.aggregates)  # Spark keeps one buffer per distinct aggregate
        reading = read_buffers([a.function for a in calls], stored)
        for position, before, after in reading.swaps:
            call = calls[position]
            args = ", ".join(render(a) for a in call.args)
            self.change("agg.function", f"the aggregate #{position + 1}",
                        Code(f"{before}(...) (the stored buffer's fields: "
                             f"{', '.join(stored)})"),
                        Code(f"{after}({args})"), self.op_loc(old), new.loc)
        if reading.shape is not None:
            needed, kept = reading.shape
            self.findings.append(own_finding(
                "CK05", self.query.label, self.op_loc(old), new.loc, operator=old.id,
                new=needed, functions=", ".join(_call(c) for c in calls), old=kept,
                stored=", ".join(stored)))
        for position, function, why in reading.unclear:
            what = (f"which function wrote the stored aggregate buffer ({', '.join(stored)}):"
                    f" {why}" if position < 0 else
                    f"whether the aggregate #{position + 1} {function}(...) is the one that "
                    f"wrote its buffer: {why}")
            self.cannot_tell(self.op_loc(old), new.loc, what)

    def windows(self, old: StatefulOperator, new: Aggregation) -> None:
        """A time window's duration and slide (a session window's gap) are not stored: the
        state key holds each window's start and end only."""
        for key in new.keys:
            if isinstance(key, Call) and key.function in WINDOW_FUNCTIONS:
                self.cannot_tell(self.op_loc(old), new.loc,
                                 f"the duration of the state key's {render(key)}: the state "
                                 "keeps each window's start and end, not its size")

    # -- pinned settings -------------------------------------------------------------------

    def config(self) -> None:
        if self.entry is None:
            return
        pinned = dict(self.entry.conf)
        for setting in self.query.config:
            stored = pinned.get(setting.key)
            value = setting.value
            if stored is None or not isinstance(value, str | int | float | bool):
                continue
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if text == stored:
                continue
            loc = Loc(self.offsets_path, 2, 0)
            change = Change("config.changed", f"`{setting.key}`", stored, text, loc,
                            setting.loc, self.query.label, {"key": setting.key})
            finding = judge(change, self.version)
            # Against a real checkpoint a pinned setting's fate is known: the rule that says
            # so takes the place of the matrix's finding where its data says (CK01).
            rule = overriding(change, finding, RAISED_BY)
            if rule is not None:
                finding = own_finding(rule.code, self.query.label, loc, setting.loc,
                                      key=setting.key, new=repr(text), old=repr(stored))
            self.findings.append(finding)


def state_schema_findings(checkpoint: Checkpoint, derived: dict[tuple[int, str], tuple],
                          query: str) -> list[Finding]:
    """Findings for schemas Spark derives from the new code (the `--confirm` hand-off).

    `derived` maps (operator id, store name) to (key fields, value fields), each a tuple of
    `streamlint.checkpoint.model.Field`; value None skips the value check, as Spark does when
    format validation of values is off.
    """
    findings = []
    for op in checkpoint.operators:
        for store in op.stores:
            if (op.id, store.name) not in derived or len(store.schemas) != 1:
                continue
            key, value = derived[(op.id, store.name)]
            stored = store.schemas[0]
            for label, old, new in (("key", stored.key, key), ("value", stored.value, value)):
                if old is None or new is None:
                    continue
                problems = schema_problems(old, new)
                if problems:
                    findings.append(own_finding(
                        "CK02", query,
                        Loc(store.schema_path or f"{checkpoint.path}/state/{op.id}", 1, 0),
                        None, part=label, operator=op.id, store=store.name,
                        problems="; ".join(problems)))
    return findings


def _stored(source: SourceOffset) -> Code:
    label = f"{source.name}: " if source.name else ""
    return Code(f"{label}{source.kind} source #{source.index} (offset {source.offset})")


def _describe(source: Source) -> Code:
    identity = ", ".join(f"{k}={v!r}" for k, v in source.identity)
    return Code(f"{source.format}({identity})" if identity else str(source.format))


def _distinct(calls: tuple[AggCall, ...]) -> list[AggCall]:
    """The aggregates Spark keeps a buffer for: the same function (by any of its names) of
    the same inputs is one aggregate."""
    def same(call: AggCall) -> tuple:
        name = call.function.lower()
        return (name if name.startswith("try_") else canonical(name), call.args, call.distinct)

    out: list[AggCall] = []
    for call in calls:
        if not any(same(c) == same(call) for c in out):
            out.append(call)
    return out


def _call(call: AggCall) -> str:
    return f"{call.function}({', '.join(render(a) for a in call.args)})"


def _op(op: StatefulOperator) -> Code:
    return Code(f"{op.name or 'unknown'} (state/{op.id})")


def _stored_key(op: StatefulOperator) -> tuple | None:
    stores = {s.name: s for s in op.stores}
    if "left-keyToNumValues" in stores:
        schemas = stores["left-keyToNumValues"].schemas
    elif op.stores and len(op.stores[0].schemas) == 1:
        schemas = op.stores[0].schemas
    elif op.stores and op.stores[0].schemas:  # transformWithState: a user variable's family
        schemas = tuple(s for s in op.stores[0].schemas if not s.name.startswith("$"))[:1]
    else:
        return None
    return schemas[0].key if schemas else None


def _new_keys(op: Any) -> tuple[str, ...]:
    keys = getattr(op, "keys", None)
    return tuple(keys) if isinstance(keys, tuple) else ()


def _key_name(key: Any) -> str | None:
    """The state key field a grouping expression becomes: a column its name, a window
    `window`; a dedup key is already a name."""
    if isinstance(key, str):
        return key if key.isidentifier() else None
    if isinstance(key, Call) and key.function in WINDOW_FUNCTIONS:
        return key.function  # Spark names the key field after the function
    return output_name(key)


def _shown(key: Any) -> str:
    return key if isinstance(key, str) else render(key)
