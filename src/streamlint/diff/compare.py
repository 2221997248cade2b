"""Compare two query shapes into a list of changes, each a kind with old and new values.

The diff states facts only ("the grouping keys changed"); whether a change is safe is the
rules' business (`streamlint.rulebook.matrix`), so the matrix stays data.
"""

from __future__ import annotations

import difflib
from typing import Any

from streamlint.diff import forks, operators, sinks, stateless
from streamlint.diff import sources as source_changes
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
from streamlint.diff.inputs import differs_in_every_deployment, input_changes, overridden
from streamlint.diff.refused import newly_refused
from streamlint.diff.render import Code, op_name
from streamlint.diff.shapes import _origin, _undecidable, sink_kind
from streamlint.model import (
    Aggregation,
    ArbitraryState,
    Deduplication,
    External,
    Loc,
    Note,
    Operator,
    Query,
    StreamJoin,
    is_known,
)
from streamlint.model.paths import same_path
from streamlint.model.records import replace
from streamlint.rulebook.matrix import judged_without_values

__all__ = ["CHANGE_KINDS", "Change", "Code", "changed_modules", "query_added", "query_removed",
           "unseen_changes"]


# Sinks whose output is not kept: without checkpointLocation Spark runs them on a temporary
# checkpoint (tests/test_spark_stream_facts.py), so a restart has nothing durable to resume.
_UNKEPT_SINKS = frozenset({"console", "memory", "noop"})
# The state store provider's setting: RocksDB is the default on Databricks 17.3+ (CF08).
STATE_STORE_PROVIDER = "spark.sql.streaming.stateStore.providerClass"


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
    """The changes between two versions of one query, each reported through `add`. The parts
    of a query are compared in the modules of those parts (`diff/sources.py`,
    `diff/stateless.py`, `diff/sinks.py`: functions of the differ, bound here as its methods;
    a pair of stateful operators in `diff/operators.py`)."""

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

    # -- sources (diff/sources.py) -----------------------------------------------------------

    sources = source_changes.sources
    source_pair = source_changes.source_pair

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

    # -- stateless parts (diff/stateless.py) -------------------------------------------------

    watermarks = stateless.watermarks
    filters_and_projections = stateless.filters_and_projections
    retyped = stateless.retyped

    # -- sinks (diff/sinks.py) ---------------------------------------------------------------

    foreach = sinks.foreach
    foreach_data = sinks.foreach_data
    sink = sinks.sink
    sink_options = sinks.sink_options

    # -- session settings -------------------------------------------------------------------

    def config(self) -> None:
        old = {s.key: s for s in self.old.config}
        new = {s.key: s for s in self.new.config}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            a_value = a.value if a else "(Spark's default)"
            b_value = b.value if b else "(Spark's default)"
            if a_value != b_value:
                facts = {"key": key, "stateful": self.certainly_stateful()}
                if key == STATE_STORE_PROVIDER:
                    facts["rocksdb_or_unset"] = str(all(
                        s is None or (isinstance(s.value, str) and is_known(s.value)
                                      and s.value.endswith("RocksDBStateStoreProvider"))
                        for s in (a, b))).lower()
                self.add("config.changed", f"the session setting `{key}`", a_value, b_value,
                         a.loc if a else None, b.loc if b else None, **facts)

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
