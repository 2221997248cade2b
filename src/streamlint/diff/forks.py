"""A branch the extractor did not read that writes the very DataFrame of the branch it read,
with other settings (a format, a path, partition columns).

Its note names only those settings and their values, so it reads the same in both versions
when the change is elsewhere: to the DataFrame, or to a setting both branches share. Such a
change is then the same change on both branches, and the diff judges it on the branch read.
That holds unless the change may act differently under the other branch's settings: a
change judged by the sink's kind when the other branch writes another format, a query name
beside another checkpoint, a checkpoint moved on one branch only. Then the note is still
asked about (UN01), naming the change.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlint.diff.branch_sink import branch_sink, cannot_start
from streamlint.model import (
    STATEFUL_KINDS,
    Fork,
    Loc,
    Outcome,
    Query,
    same_dataframe_settings,
    show,
)
from streamlint.model.records import replace
from streamlint.rulebook.change import Change, Code
from streamlint.rulebook.matrix import verdict_of
from streamlint.rulebook.profiles import all_runtimes

# Changes judged by the sink's kind: on a branch writing another format they may be judged
# otherwise (or, for options, compared at all).
_BY_SINK_KIND = frozenset({
    "sink.format", "sink.path", "sink.topic", "sink.table", "sink.foreach_code",
    "sink.foreach_writes", "sink.foreach_data", "sink.partition_by", "projection.columns",
    "query.volatile_checkpoint",
})
# Never judged for the other branch from the branch read: what could not be read, and a
# checkpoint change (a deliberate reset drops the branch read's other changes, which the
# other branch, on its own checkpoint, would still meet).
_NEVER = frozenset({"unresolved", "unseen", "query.checkpoint"})


def settings_of(note: str) -> frozenset[str] | None:
    """The settings a same-DataFrame branch sets differently, or None for any other note."""
    return same_dataframe_settings(note)


# Changes judged the same whatever the output mode or trigger: a continuous trigger refuses
# most operators (a watermark, a join), an output mode decides what an aggregation emits. A
# sink function's code or writes (SK07, SK12) are judged by that code alone.
_ANY_MODE = frozenset({"source.rate_limit", "source.option", "sink.option", "query.name",
                       "config.changed", "sink.foreach_code", "sink.foreach_writes",
                       "sink.foreach_data"})


def may_differ(change: Change, settings: frozenset[str]) -> bool:
    """Whether `change`, judged on the branch read, may be judged otherwise on a branch that
    writes the same DataFrame with these settings changed."""
    if change.kind in _NEVER:
        return True
    if ({"trigger", "output mode"} & settings) and change.kind not in _ANY_MODE:
        return True
    if change.kind in _BY_SINK_KIND or change.kind == "output_mode":
        # A file sink takes only append; a memory sink's table is the query name.
        return "format" in settings
    if change.kind == "query.name":  # compared only where the checkpoint stays
        return bool({"format", "option `checkpointlocation`"} & settings)
    return False


Compare = Callable[[tuple[str, ...], Query, Query], list[Change]]


def matched_forks(old_query: Query, new_query: Query, old_notes: dict[str, Loc],
                  new_notes: dict[str, Loc], compare: Compare) -> tuple[set[str], list[Change]]:
    """Notes on run-time forks that need no question, and the changes found on their
    branches not read. A fork in both versions under the same condition: its branch not read
    is compared with its old self (`other_branch_changes`). A fork in one version only (a new
    `if` around a step): its two branches are compared with each other; where everything
    that differs is compatible, either branch continues the old query as the one read does.
    """
    matched: set[str] = set()
    changes: list[Change] = []
    olds = [t for t in old_notes if isinstance(t, Fork) and t not in new_notes]
    for text in new_notes:
        if not isinstance(text, Fork) or text in old_notes:
            continue
        for before in olds:
            if before in matched:
                continue
            found = other_branch_changes(old_query, new_query, before, text, compare)
            if found is not None:
                changes.extend(found)
                matched |= {before, text}
                break
    for query, notes, others in ((new_query, new_notes, old_notes),
                                 (old_query, old_notes, new_notes)):
        for text in notes:
            if isinstance(text, Fork) and text not in others and text not in matched \
                    and _alternatives_agree(query, text, compare):
                matched.add(text)
    return matched, changes


def without_repeats(changes: list[Change]) -> list[Change]:
    """The changes, without those found on a branch not read that are the same change found
    on the branch read (upstream of the fork both branches share it) or on another branch."""
    seen = {_key(c) for c in changes if "branch" not in c.facts}
    kept: list[Change] = []
    for change in changes:
        if "branch" in change.facts:
            if _key(change) in seen:
                continue
            seen.add(_key(change))
        kept.append(change)
    return kept


def _key(change: Change) -> tuple[str, str, str, str]:
    return change.kind, change.subject, repr(change.old), repr(change.new)


def _alternatives_agree(query: Query, fork: Fork, compare: Compare) -> bool:
    if fork.other is None or fork.chosen is None:
        return False
    sink = branch_sink(query.sink, fork.chosen[4], fork.other[4])
    if sink is None:
        return False
    if cannot_start(sink) and not cannot_start(query.sink):
        # Where the run takes the other branch (an `elif` chain with no `else`), Spark refuses
        # the query at its start: no query there restarts, and none writes a checkpoint.
        return True
    read, other = _with(query, fork.chosen), _with(replace(query, sink=sink), fork.other)
    return all(_compatible(change) for change in compare(("alternatives", fork), read, other))


def stateless_notes(notes: tuple[tuple[str, Loc], ...]) -> bool:
    """Whether every note is a run-time fork whose branches are data without a stateful
    operator (and so are the notes they carry): nothing unread may hold state."""
    seen: set[int] = set()  # notes nest (an upstream fork is in every branch below it)
    todo = list(notes)
    while todo:
        text, _ = todo.pop()
        if id(text) in seen:
            continue
        seen.add(id(text))
        if not isinstance(text, Fork) or text.other is None or \
                any(op.kind in STATEFUL_KINDS for op in text.other[1]):
            return False
        todo.extend(text.other[3])
    return True


def _with(query: Query, shape: tuple) -> Query:
    """The query with the DataFrame of one branch of a fork (a shape: `model.Fork`)."""
    return replace(query, sources=shape[0], operators=shape[1], output_columns=shape[2],
                   unresolved=shape[3])


def other_branch_changes(old_query: Query, new_query: Query, old: Fork, new: Fork,
                         compare: Compare) -> list[Change] | None:
    """The changes on a run-time fork's branch not read, or None where they cannot be told.

    The note on such a fork names a digest of the other branch, so any edit there makes the
    note differ. Where both versions carry the branch as data (`Fork.other`) under the same
    condition, it is compared with its old self as a query of its own (the read branch's
    sink, its own DataFrame). What a writer on that branch sets besides must be the same."""
    if (old.other is None or new.other is None or old.chosen is None or new.chosen is None
            or old.condition != new.condition or old.which != new.which):
        return None
    old_sink = branch_sink(old_query.sink, old.chosen[4], old.other[4])
    new_sink = branch_sink(new_query.sink, new.chosen[4], new.other[4])
    if old_sink is None or new_sink is None:
        return None
    if cannot_start(old_sink) and cannot_start(new_sink):
        # Spark starts neither version there: no checkpoint of that branch to restart from,
        # and no query of it to restart.
        return []
    # The DataFrame of the branch is compared, and the sink its writer gives it; the
    # settings and the values from outside are the query's, judged once on the branch read.
    shared = replace(old_query, sink=old_sink, config=new_query.config,
                     inputs=new_query.inputs)
    before, after = _with(shared, old.other), _with(replace(new_query, sink=new_sink),
                                                    new.other)
    return [replace(change, facts={**change.facts, "branch": new.condition})
            for change in compare(("branches", old, new), before, after)
            if not _compatible(change)]


def _compatible(change: Change) -> bool:
    """Compatible on every runtime streamlint knows (Spark versions, Databricks runtimes):
    the report's is not known here, and a change on a branch not read is dropped only where
    no runtime could object."""
    return all(verdict_of(change, version) == "compatible" for version in _VERSIONS)


def _incompatible(change: Change) -> bool:
    return any(verdict_of(change, version) == "incompatible" for version in _VERSIONS)


_VERSIONS = all_runtimes()


def continued_branch(old_query: Query, new_query: Query, changes: list[Change],
                     compare: Compare) -> list[Change] | None:
    """Where the branch read of a fork only the new version has (a new `if` on a value the
    old code never asked) does not continue the old query but another branch of it does,
    the old deployment keeps taking that one: the changes against that branch, and a note
    naming the new way and what it changes (`fork.alternative`). None where no fork is new,
    the branch read continues the old query anyway, or no other branch does.

    Only branches whose DataFrame and writer settings are data are taken (`Fork.other`,
    its sink rebuilt from them: `branch_sink`); a fork whose every branch changes the query
    is judged on the one read, as before."""
    if all(_compatible(change) for change in changes):
        return None
    old_conditions = {text.condition for text, _ in old_query.unresolved
                      if isinstance(text, Fork)}
    for text, loc in new_query.unresolved:
        if (not isinstance(text, Fork) or text.condition in old_conditions
                or isinstance(text.condition, Outcome)  # the run decides, not a deployment
                or text.other is None or text.chosen is None):
            continue
        branch = _taking(new_query, text)
        if branch is None:
            continue
        kept = _kept_read(branch, text, old_conditions)
        branch = replace(branch, unresolved=tuple(n for n in branch.unresolved
                                                  if not any(n[0] is k for k in kept)))
        continued = compare(("continued", text), old_query, branch)
        if any(_incompatible(change) for change in continued):
            continue  # what it cannot read, or must ask, stays a finding beside the note
        # What the new way changes, in words: its first change that is not this note.
        first = next((c for c in changes if not _compatible(c) and c.kind != "unresolved"),
                     next(c for c in changes if not _compatible(c)))
        taken = Code(_in_words(first) if first.kind != "unresolved"
                     else "what it changes is not read")
        note = Change("fork.alternative", text.condition, None, taken, None, loc,
                      new_query.label, {"stateful": first.facts.get("stateful", "false")})
        return [*continued, note, *(_read_kept(new_query, old_query, fork, at, compare)
                                    for fork, at in kept.items())]
    return None


def _kept_read(branch: Query, taken: Fork, old_conditions: set[str]) -> dict[Fork, Loc]:
    """Other forks only the new version has whose branch read holds the fork taken (a dict
    of options chosen by a new condition, handed to the function that forks): the old
    deployment keeps to their branch read too, the one the taken branch lies on."""
    return {text: loc for text, loc in branch.unresolved
            if isinstance(text, Fork) and text is not taken and text.chosen is not None
            and text.condition not in old_conditions and not isinstance(text.condition, Outcome)
            and any(inner is taken for inner, _ in text.chosen[3])}


def _read_kept(query: Query, old_query: Query, fork: Fork, loc: Loc,
               compare: Compare) -> Change:
    """The note that the new code takes another way where a kept fork's condition does not
    hold (UN09), naming what that way changes against the old query."""
    other = _taking(query, fork)
    changes = [] if other is None else [
        c for c in compare(("other way", fork), old_query, other) if not _compatible(c)]
    first = next((c for c in changes if c.kind != "unresolved"), None)
    taken = Code(_in_words(first) if first is not None else "what it changes is not read")
    return Change("fork.alternative", f"not ({fork.condition})", None, taken, None, loc,
                  query.label, {"stateful": "false" if first is None
                                else first.facts.get("stateful", "false")})


def _taking(query: Query, fork: Fork) -> Query | None:
    """The query as it is where the run takes the fork's other branch: that branch's
    DataFrame, then what the query does after the fork (its later operators and notes).
    None where what follows cannot be told apart from the branch read (a later join of
    another stream, columns a later step sets from the branch's own)."""
    if fork.chosen is None or fork.other is None:
        return None
    sink = branch_sink(query.sink, fork.chosen[4], fork.other[4])
    if sink is None or cannot_start(sink):
        return None
    sources, operators, columns, notes = fork.chosen[:4]
    if query.sources != sources or query.operators[:len(operators)] != operators:
        return None
    later_ops = query.operators[len(operators):]
    if query.output_columns == columns:
        columns = fork.other[2]
    elif fork.other[2] != columns:
        return None
    else:
        columns = query.output_columns
    at = next((i for i, (text, _) in enumerate(query.unresolved) if text is fork), None)
    if at is None or query.unresolved[:len(notes)] != notes:
        return None
    later = tuple((_rebased(text, fork), loc) for text, loc in query.unresolved[at + 1:])
    return replace(query, sink=sink, sources=fork.other[0],
                   operators=(*fork.other[1], *later_ops),
                   output_columns=columns,
                   unresolved=(*fork.other[3], *later))


def _rebased(text: object, fork: Fork) -> object:
    """A later fork's note as it is where the run takes `fork`'s other branch: its branches
    were read on top of the branch read, and stand on the other one instead. Unchanged where
    they do not start from the branch read as it was at `fork` (then they differ, and ask)."""
    if not isinstance(text, Fork) or text.other is None or text.chosen is None:
        return text
    other, chosen = _on_other(text.other, fork), _on_other(text.chosen, fork)
    if other is None or chosen is None:
        return text
    return Fork(text.text, text.condition, text.which, other, chosen, text.settings, text.shown)


def _on_other(shape: tuple, fork: Fork) -> tuple | None:
    read, other = fork.chosen, fork.other
    if read is None or other is None or shape[0] != read[0] or \
            shape[1][:len(read[1])] != read[1] or not any(n is fork for n, _ in shape[3]):
        return None
    notes = tuple(item for n, loc in shape[3]
                  for item in (other[3] if n is fork else ((n, loc),)))
    columns = other[2] if shape[2] == read[2] else shape[2]
    return (other[0], (*other[1], *shape[1][len(read[1]):]), columns, notes, shape[4])


def _in_words(change: Change) -> str:
    if change.old is None:
        return f"{change.subject} is added: {show(change.new)}"
    if change.new is None:
        return f"{change.subject} is removed: {show(change.old)}"
    return f"{change.subject} changed from {show(change.old)} to {show(change.new)}"
