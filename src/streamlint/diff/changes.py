"""The changes the diff reports: their kinds, the record each is, and the query-level ones
(a query added or removed, code streamlint could not read) that need no pairing."""

from __future__ import annotations

from streamlint.model import JobFile, Query, Source, is_known, option
from streamlint.rulebook.change import (  # noqa: F401 - the diff's names for them
    CHANGE_KINDS,
    STILL_MATTERS_AFTER_RESET,
    STRUCTURAL,
    Change,
)


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
    # Unread code whose fingerprint (what can reach it: extract/reach.py, a SQL cell's text)
    # is in the other version too is the same code, wherever it moved (a cell renumbered).
    old_prints = {(u.about, u.fingerprint) for u in old.unseen if u.fingerprint}
    new_prints = {(u.about, u.fingerprint) for u in new.unseen if u.fingerprint}
    for key, item in news.items():
        before = olds.get(key)
        if item.fingerprint and (item.about, item.fingerprint) in old_prints:
            continue  # the same unfollowed code handed the same stream: nothing changed here
        changes.append(Change("unseen", item.what, None, None,
                              before.loc if before else None, item.loc, "(not read)",
                              {"about": item.about, "side": "new"}))
    for key, item in olds.items():
        if item.fingerprint and (item.about, item.fingerprint) in new_prints:
            continue
        if key not in news:
            changes.append(Change("unseen", item.what, None, None, item.loc, None,
                                  "(not read)", {"about": item.about, "side": "old"}))
    return changes


# Options that pin where a fresh query starts reading: a position, not a policy.
START_OPTIONS = ("startingOffsets", "startingOffsetsByTimestamp", "startingTimestamp",
                 "startingVersion")
START_POLICIES = ("latest", "earliest")


def _start(source: Source) -> tuple:
    return tuple((key, option(source.options, key)) for key in START_OPTIONS
                 if option(source.options, key) is not None)


def deliberate_reset(old: Query, new: Query) -> bool:
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

