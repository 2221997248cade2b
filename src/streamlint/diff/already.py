"""Only the change is judged: a problem the old version already had is not its verdict.

Some findings are about the new version as it stands, not about what changed: two queries on
one checkpoint, a checkpoint path built from the clock. When the old version had the very same
problem (the same checkpoint shared the same way, the same call in the same path), the change
did not cause it and restarting the new code is no worse than restarting the old: the problem
is reported once, as a note that it was already there (QY18), never as the change's verdict and
never in the exit code. A file diffed against itself then has no finding above note.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlint.diff.changes import Change
from streamlint.model import Failure, Fork, Loc, Query, show

# The kinds of change that describe one version, not the difference between two.
STANDING = frozenset({"query.shared_checkpoint", "query.volatile_checkpoint"})


def _signature(change: Change) -> tuple:
    """What makes two standing problems the same problem: its kind, the checkpoint (shown),
    what it is (the call, or how alike the queries are), never where the code sits."""
    facts = tuple(sorted((k, v) for k, v in change.facts.items() if k != "stateful"))
    if change.kind == "query.volatile_checkpoint":
        return (change.kind, str(change.subject), show(change.new), facts)
    return (change.kind, show(change.new), facts)


def unchanged_reads(changes: list[Change]) -> list[Change]:
    """For two versions that are the same code (the job and every module it follows): a
    value read from a file streamlint cannot read (UN06) is as it was; whether that file
    changed is no part of this change, so it is noted, not asked about."""
    return [Change("query.already_present", _describe(c), c.old, c.new, c.old_loc, c.new_loc,
                   c.query, {"problem": c.kind}) if c.kind == "input.unread" else c
            for c in changes]


def _describe(change: Change) -> str:
    """The problem in words, as the finding it replaces would have put it."""
    if change.kind == "query.fails":
        return str(change.subject)
    if change.kind == "input.unread":
        return f"{change.subject}, which streamlint could not read"
    if change.kind == "query.volatile_checkpoint":
        return f"the checkpointLocation {change.new} is built from {change.subject}"
    return f"{change.new} is also the checkpoint of {change.old}"


def already_present(new_changes: list[Change], old_changes: list[Change],
                    harmless: Callable[[Change], bool]) -> list[Change]:
    """`new_changes` with each standing problem the old version also had turned into a note
    (`query.already_present`) that keeps its description and location. One that is
    `harmless` anyway (a debug sink's fresh checkpoint per run, QY14) keeps its own rule."""
    before = {_signature(c) for c in old_changes if c.kind in STANDING}
    out = []
    for change in new_changes:
        if change.kind in STANDING and _signature(change) in before and not harmless(change):
            out.append(Change("query.already_present", _describe(change), change.old, change.new,
                              change.old_loc, change.new_loc, change.query,
                              {"problem": change.kind}))
        else:
            out.append(change)
    return out


# -- a version that cannot start -------------------------------------------------------------


def failure_of(query: Query) -> tuple[Failure, Loc] | None:
    """The call that stops a query from ever starting (`model.Failure`), if its DataFrame was
    read without a run-time fork: a branch not read might not make that call."""
    if any(isinstance(text, Fork) for text, _ in query.unresolved):
        return None
    return next(((text, loc) for text, loc in query.unresolved if isinstance(text, Failure)),
                None)


def _fails(kind: str, failure: tuple[Failure, Loc], side: str, query: Query,
           label: str) -> Change:
    """`query` is the new version's: where the old version's failure is reported."""
    text, loc = failure
    subject = f"the {side} version fails at line {loc.line}: {text}"
    facts = {"stateful": "true" if query.stateful else "false", "error": text.error}
    if side == "old":
        return Change(kind, subject, text, None, loc, query.sink.loc, label, facts)
    return Change(kind, subject, None, text, None, loc, label, facts)


def judged_starts(before: Query, after: Query, found: list[Change]) -> list[Change]:
    """A paired query's changes, where a version can never start. The old version that could
    not start left no checkpoint to restart from: whatever changed is no restart question,
    and its fix is compatible, with a note saying why (QY25). The new version that cannot
    start is a finding of its own (QY26); when the old one failed the same way too, that is
    said once, as already there (QY18)."""
    old, new = failure_of(before), failure_of(after)
    if old is None and new is None:
        return found
    label = after.label
    if old is None:
        kept = [c for c in found if not isinstance(c.subject, Failure)]
        return [*kept, _fails("query.fails", new, "new", after, label)]  # type: ignore[arg-type]
    if new is None:
        return [_fails("query.old_fails", old, "old", after, label)]
    standing = _fails("query.fails", new, "new", after, label)
    return [Change("query.already_present", _describe(standing), old[0], new[0], old[1], new[1],
                   label, {"problem": "query.fails"})]
