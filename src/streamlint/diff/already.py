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
from streamlint.model import show

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
