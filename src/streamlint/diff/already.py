"""Only the change is judged: a problem the old version already had is not its verdict.

Some findings are about the new version as it stands, not about what changed: two queries on
one checkpoint, a checkpoint path built from the clock. When the old version had the very same
problem (the same checkpoint shared the same way, the same call in the same path), the change
did not cause it and restarting the new code is no worse than restarting the old: the problem
is reported once, as a note that it was already there (QY18), never as the change's verdict and
never in the exit code. A file diffed against itself then has no finding above note.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable

from streamlint.diff.changes import Change
from streamlint.model import Failure, Fork, JobFile, Loc, Query, show

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


# -- a version Python cannot parse ------------------------------------------------------------

# The findings' query: a file that does not parse has no query streamlint could read.
WHOLE_FILE = "(the whole file)"


def unparsable(old: JobFile, new: JobFile) -> list[Change]:
    """The changes of two versions one of which Python cannot parse (`JobFile.syntax_error`).

    Nothing of that version can be read, and it can never start. Written the same as the
    other version (only line endings or layout changed), nothing changed: the error is
    noted as already there (QY18). Otherwise a new version that does not parse cannot start
    (QY26); an old one that does not parse never ran, so no checkpoint of it exists (QY25),
    as for an old version whose query fails on every run.
    """
    stateful = "true" if any(q.stateful for q in (*old.queries, *new.queries)) else "false"
    if new.syntax_error is not None:
        line, column, message = new.syntax_error
        subject = f"the new version does not parse at line {line}: {message}"
        at = Loc(new.path, line, column)
        if old.syntax_error is not None and same_code(old.text, new.text):
            before = Loc(old.path, *old.syntax_error[:2])
            return [Change("query.already_present", subject, None, None, before, at, WHOLE_FILE,
                           {"problem": "query.fails"})]
        return [Change("query.fails", subject, None, None, None, at, WHOLE_FILE,
                       {"stateful": stateful, "error": "SyntaxError"})]
    assert old.syntax_error is not None
    line, column, message = old.syntax_error
    return [Change("query.old_fails", f"the old version does not parse at line {line} "
                   f"({message})", None, None, Loc(old.path, line, column), None, WHOLE_FILE,
                   {"stateful": stateful, "error": "SyntaxError"})]


def same_code(old: str, new: str) -> bool:
    """Whether two texts are the same Python but for line endings and layout: the same
    tokens (comments included), indentation compared by its structure, not its width."""
    if old.replace("\r\n", "\n") == new.replace("\r\n", "\n"):
        return True
    try:
        return _tokens(old) == _tokens(new)
    except (tokenize.TokenError, SyntaxError):
        return False


_LAYOUT = frozenset({tokenize.NL, tokenize.ENCODING})


def _tokens(text: str) -> list[tuple[int, str]]:
    return [(t.type, "" if t.type in (tokenize.INDENT, tokenize.NEWLINE) else t.string)
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in _LAYOUT]
