"""Findings placed at the change: the line the pull request touched that causes them.

A finding is located where the query uses what changed: the `groupBy` of a chain whose
`.agg(sum)` became `.agg(max)` two lines further, the `.option("checkpointLocation", CHECKPOINT)`
of a constant changed at the top of the file. A code host shows an annotation in a pull
request's diff only on a changed line, so a finding whose line did not change moves to the
changed line that causes it, and keeps its old place as a related location (SARIF's
`relatedLocations`, a `used at:` line in text):

- a changed line inside the statement the finding points at (the chain's `.agg(...)` line),
  the whole `if` for a finding at its condition (the branch streamlint did not read); for a
  finding about one setting (`.option(...)`, `.schema(...)`, `.partitionBy(...)`), inside
  that call only: another option changed in its chain is not its cause;
- else the changed assignment of a name that statement uses (`CHECKPOINT = ...`), or, where
  it uses several, of a name its own line uses: a finding about one option, the schema or
  the partitioning points at the `.option(...)`, `.schema(...)` or `.partitionBy(...)` that
  gave it (extraction keeps where each was given), so `.option("subscribe", TOPIC)` leads to
  `TOPIC = ...` while `LIMIT = ...` changed too;
- else the first changed line of code of a function of the file that the finding's line
  names, or of one that function names (`.foreachBatch(upsert)` and a changed line in
  `def upsert(batch, epoch_id):`; at_bodies.py): the finding's own line is nearer than
  the changed assignments the rest of its statement uses;
- else, in another file of the repository the job was followed into, the changed statement
  that binds what the statement imports from there: `from conf import TOPIC` and a changed
  `TOPIC = ...` in conf.py, `settings.TOPIC` and a changed `TOPIC: str = ...` in the module
  `settings` comes from, a changed `def topic():` called there;
- else, for a statement inside a function, the changed argument a call of that function
  passes for a parameter the statement uses (`read(spark, "payments_v2")` for
  `.option("subscribe", topic)` in `def read(spark, topic)`), followed through callers that
  pass their own parameters on; where the statement uses no parameter, or every call passes
  what it passed before, the one changed call of the function (the last line picking which
  query runs); of several calls of the function, those the query was started through; an
  argument passed unchanged is followed into the module it imports (`read(spark,
  settings.topic)` and a changed `topic: str = ...` in config.py);
- else a changed function the line names through unchanged assignments
  (`self.transformer = self._load_component(...)` and a changed `_load_component`).

A finding about a query the new version no longer has points where its code was taken out:
the changed line the new file has in place of its old line (or of the old change causing
it). Where the lines were deleted with nothing in their place it keeps no new place, and
the reports say where it was in the old version.

A new file Python cannot parse points at the one edit whose undoing makes it parse
(`at_syntax.py`), its queries gone with it alike.

Names the statement uses that are bound by unchanged assignments of its file are followed to
what those use (`TOPIC = settings.TOPIC`), and an unchanged function they call to what it
reads of its module (`cfg = load_config(spark)` and `spark.table(f"{META}.ops")` in it);
`from conf import *` binds what conf.py binds. A module one version's code was followed into
and the other's not is compared with what the other's repository has there (a job moved into
a module that existed before), never taken as new whole (`JobFile.counterparts`). A name a
function assigns is its own: another function's assignment of that name is no binding of it.

Only one cause moves a finding: where several changed bindings could be it, which one did
is not told, and the finding stays where the query uses them. Findings in a helper module the
job was followed into move alike. Both versions move alike, so the old and new snippets show
the difference. Notebooks in their JSON form are left as they are.
"""

from __future__ import annotations

import difflib

from streamlint.model import Loc
from streamlint.model.records import replace
from streamlint.policy import at_bodies, at_syntax
from streamlint.policy.at_calls import calls
from streamlint.policy.at_version import Counterpart, Source, Version
from streamlint.rulebook.matrix import Finding

UNREAD = "unseen"  # the change kind of code streamlint did not read (UN03: diff/changes.py)


def at_change(findings: tuple[Finding, ...], old_text: str, old_path: str, new_text: str,
              new_path: str, old_sources: tuple[Source, ...] = (),
              new_sources: tuple[Source, ...] = (),
              old_counterparts: tuple[Counterpart, ...] = (),
              new_counterparts: tuple[Counterpart, ...] = ()) -> tuple[Finding, ...]:
    """The findings, each one whose line did not change moved to the change causing it.

    `old_sources` and `new_sources` are the repository files each version's code was
    followed into (`JobFile.sources`); `old_counterparts` and `new_counterparts`, what each
    version's repository has at the paths only the other followed (`JobFile.counterparts`):
    a module the job moved into is compared with what it was."""
    if not old_text or not new_text or new_path.lower().endswith(".ipynb"):
        return findings
    old = Version(old_path, old_text, old_sources, old_counterparts)
    new = Version(new_path, new_text, new_sources, new_counterparts)
    if not any(_movable(f, new) or _gone(f, old) for f in findings):
        return findings
    _mark_changes(old, new)
    out: list[Finding] = []
    for finding in findings:
        if _gone(finding, old):
            assert finding.old is not None
            out.append(replace(finding, new=_removed_at(old, new, finding.old)))
            continue
        if not _movable(finding, new):
            out.append(finding)
            continue
        assert finding.new is not None
        new.via, old.via = finding.new_calls, finding.old_calls
        cause = (_broken_at(old, new, finding.new) or _uncalled_at(old, new, finding.new)
                 or new.cause(finding.new.path, finding.new.line, finding.new.column)
                 or (new.reach_cause(finding.new.path, finding.new.line)
                     if finding.kind == UNREAD else None))
        if cause is None:
            out.append(finding)
            continue
        moved_old = finding.old
        if finding.old is not None and finding.old.path in old.by_shown:
            moved_old = (old.cause(finding.old.path, finding.old.line, finding.old.column)
                         or finding.old)
        out.append(replace(finding, new=cause, old=moved_old,
                           related=(*finding.related, finding.new)))
    return tuple(out)


def _movable(finding: Finding, new: Version) -> bool:
    return finding.new is not None and finding.new.path in new.by_shown and not finding.related


def _gone(finding: Finding, old: Version) -> bool:
    """A finding about code the new version no longer has (it has an old place only); not
    one about an old version Python cannot parse, which had no query to lose."""
    return (finding.new is None and finding.old is not None
            and finding.old.path in old.by_shown
            and old.file(old.by_shown[finding.old.path]).tree is not None)


def _broken_at(old: Version, new: Version, loc: Loc) -> Loc | None:
    """For a finding in a file the new version broke (Python cannot parse it, the old one
    it could), the edit that broke it (`at_syntax.py`)."""
    key = new.by_shown[loc.path]
    side = new.file(key)
    if side.tree is not None or loc.line in side.changed or key not in old.files:
        return None
    found = at_syntax.broken_at(old.file(key), side, old.hunks.get(key, []))
    return Loc(loc.path, found, side.indent(found)) if found is not None else None


def _removed_at(old: Version, new: Version, loc: Loc) -> Loc | None:
    """Where in the new version the code of a gone query was taken out: the changed line the
    new file has in its place (of the old line itself, or of the old change causing it); None
    when the lines were deleted with nothing in their place (the finding is then shown at
    its old place, `where` says so)."""
    key, line = old.by_shown[loc.path], loc.line
    if key in new.files and new.file(key).tree is None:
        # gone because the new file does not parse: where the edit broke it
        return _broken_at(old, new, Loc(new.files[key], 0, 0))
    if line not in old.file(key).changed:
        cause = old.cause(loc.path, line)
        if cause is None or cause.path not in old.by_shown:
            return None
        key, line = old.by_shown[cause.path], cause.line
    at = _in_place(old, new, key, line)
    return Loc(new.files[key], at, new.file(key).indent(at)) if at is not None else None


def _in_place(old: Version, new: Version, key: str, line: int) -> int | None:
    """The changed line the new version of a file has in place of a changed old line."""
    if key not in new.files:
        return None
    for tag, i1, i2, j1, j2 in old.hunks.get(key, ()):
        if tag == "replace" and i1 < line <= i2:
            return j1 + min(line - 1 - i1, j2 - j1 - 1) + 1
    return None


def _uncalled_at(old: Version, new: Version, loc: Loc) -> Loc | None:
    """For a finding in a function the new version no longer calls (its query read with
    what its parameters may be), where its call was: the one changed line in place of the
    old version's calls of it (`compute_promotion_counts()` commented out)."""
    key = new.by_shown[loc.path]
    side = new.file(key)
    function = side.function_at(loc.line) if side.tree is not None else None
    if (function is None or loc.line in side.changed or key not in old.files
            or new.call_sites(key, function)):
        return None
    before = old.file(key)
    found = {at for call in calls(before.calls(), function.node.name, True)
             if call.lineno in before.changed
             for at in [_in_place(old, new, key, call.lineno)] if at is not None}
    if len(found) != 1:
        return None
    at = found.pop()
    return Loc(loc.path, at, side.indent(at))


def _mark_changes(old: Version, new: Version) -> None:
    """Each file's changed lines on both sides: the job against the job, a module against
    the module of the same repository path (a file the other version lacks changed whole)."""
    pairs = [(path if path in old.files else None, path if path in new.files else None)
             for path in sorted(set(old.files) | set(new.files))]
    for before, after in pairs:
        a = old.file(before) if before is not None else None
        b = new.file(after) if after is not None else None
        # a file one version followed and the other did not: what the other's repository
        # has there (a job moved into a module that existed before), nothing if it has none
        lines_a = a.lines if a is not None else old.counterpart(after)
        lines_b = b.lines if b is not None else new.counterpart(before)
        if lines_a == lines_b:
            continue
        matcher = difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False)
        if before is not None and after is not None:
            old.hunks[before] = matcher.get_opcodes()
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                if a is not None:
                    a.changed.update(range(i1 + 1, i2 + 1))
                if b is not None:
                    b.changed.update(range(j1 + 1, j2 + 1))
            if tag == "replace" and a is not None and b is not None:
                at_bodies.mark_respaced(a, b, (i1, i2), (j1, j2))
            elif tag == "delete" and b is not None:
                b.cut.add(j1)
            elif tag == "insert" and a is not None:
                a.cut.add(i1)
