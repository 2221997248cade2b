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

import ast
import difflib

from streamlint.model import Loc
from streamlint.model.records import replace
from streamlint.policy import at_bodies, at_syntax
from streamlint.policy.at_calls import (
    Defined,
    NotKnown,
    argument,
    calls,
    default,
    import_bindings,
    parameters,
)
from streamlint.policy.at_side import Side
from streamlint.rulebook.matrix import Finding

Source = tuple[str, str, str]  # (root-relative path, path as locations show it, text)
Counterpart = tuple[str, str, str | None]  # the same, None for a file this version lacks
CALL_DEPTH = 3  # `main()` calls `run(topic)` calls `read(topic)`: how far calls are followed


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
    old = _Version(old_path, old_text, old_sources, old_counterparts)
    new = _Version(new_path, new_text, new_sources, new_counterparts)
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
        cause = (_broken_at(old, new, finding.new)
                 or new.cause(finding.new.path, finding.new.line, finding.new.column))
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


def _movable(finding: Finding, new: _Version) -> bool:
    return finding.new is not None and finding.new.path in new.by_shown and not finding.related


def _gone(finding: Finding, old: _Version) -> bool:
    """A finding about code the new version no longer has (it has an old place only); not
    one about an old version Python cannot parse, which had no query to lose."""
    return (finding.new is None and finding.old is not None
            and finding.old.path in old.by_shown
            and old.file(old.by_shown[finding.old.path]).tree is not None)


def _broken_at(old: _Version, new: _Version, loc: Loc) -> Loc | None:
    """For a finding in a file the new version broke (Python cannot parse it, the old one
    it could), the edit that broke it (`at_syntax.py`)."""
    key = new.by_shown[loc.path]
    side = new.file(key)
    if side.tree is not None or loc.line in side.changed or key not in old.files:
        return None
    found = at_syntax.broken_at(old.file(key), side, old.hunks.get(key, []))
    return Loc(loc.path, found, side.indent(found)) if found is not None else None


def _removed_at(old: _Version, new: _Version, loc: Loc) -> Loc | None:
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
    if key not in new.files:
        return None
    for tag, i1, i2, j1, j2 in old.hunks.get(key, ()):
        if tag == "replace" and i1 < line <= i2:
            at = j1 + min(line - 1 - i1, j2 - j1 - 1) + 1
            return Loc(new.files[key], at, new.file(key).indent(at))
    return None


def _mark_changes(old: _Version, new: _Version) -> None:
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


class _Version:
    """One version of the job: its file and the repository files its code was followed into,
    by root-relative path (the job's own key is `job`)."""

    def __init__(self, path: str, text: str, sources: tuple[Source, ...],
                 counterparts: tuple[Counterpart, ...] = ()) -> None:
        self.job = "\0job"
        self.files: dict[str, str] = {self.job: path}  # key -> shown path
        self.texts: dict[str, str] = {path: text}
        self.by_shown: dict[str, str] = {path: self.job}
        self.relpath: dict[str, str] = {}  # shown path -> root-relative path
        for relpath, shown, source_text in sources:
            if shown == path:
                self.relpath[path] = relpath
                continue
            self.files[relpath] = shown
            self.texts[shown] = source_text
            self.relpath[shown] = relpath
            if relpath.endswith(".py"):
                self.by_shown[shown] = relpath
        self.counterparts = {relpath: text.splitlines() for relpath, _, text in counterparts
                             if text is not None}
        self._sides: dict[str, Side] = {}
        self._imports: dict[str, dict[str, tuple[str, str | None]]] = {}
        # The old version's: each file's difflib opcodes against the new version's file
        self.hunks: dict[str, list[tuple[str, int, int, int, int]]] = {}
        # The calls the finding's query was started through (`Finding.new_calls`), set for
        # each finding: of a function's calls, those that made the query are followed.
        self.via: tuple[Loc, ...] = ()

    def counterpart(self, key: str | None) -> list[str]:
        """The lines this version's repository has at a path only the other version's code
        was followed into (none where it has no such file)."""
        return self.counterparts.get(key, []) if key is not None else []

    def file(self, key: str) -> Side:
        shown = self.files[key]
        if shown not in self._sides:
            self._sides[shown] = Side(self.texts[shown], key == self.job or key.endswith(".py"))
        return self._sides[shown]

    def cause(self, path: str, line: int, column: int = -1) -> Loc | None:
        """Where the change causing a finding at `path:line` (at `column`: a method called
        there) is, None when that line changed itself or no single cause is found."""
        side = self.file(self.by_shown[path])
        if side.tree is None or line in side.changed:
            return None
        found = at_bodies.branch_cause(side, line) or side.cause(line, column)
        if found is not None:
            return Loc(path, found, side.indent(found))
        at_line = self._line_cause(path, side, line, column)
        if at_line is not None:
            return at_line
        # A function the finding's own line names (`.foreachBatch(upsert)`, or an `if` it
        # points at in its branches), nearer than what the rest of its statement uses; none
        # where the statement itself lost a line (a removed `.option(...)`)
        names = set() if at_bodies.cut_inside(side, line) else (
            side.names_at(line, column) | at_bodies.branch_names(side, line))
        named = at_bodies.body_causes(side, names, line)
        # a finding about one setting is about that call's arguments (`_line_cause`), not
        # what the rest of its chain uses
        setting = side.setting_at(line, column) is not None
        if named or (side.bound_changed(line) and not setting):
            return _one(path, side, named)  # several: not told which
        return (self._imported_cause(path, side, side.uses_at(line, column) if setting
                                     else side.uses(line))
                or self._call_cause(path, side, line, column)
                or _one(path, side, at_bodies.body_causes(side, side.closure(names, line),
                                                          line)))

    def _line_cause(self, path: str, side: Side, line: int, column: int) -> Loc | None:
        """The one changed binding of what the finding's own line uses, where the statement
        as a whole uses several (a chain of options, one of which reads what changed)."""
        used = side.uses_at(line, column)
        bindings = side.changed_bindings_of(used[0], line)
        if bindings:
            return Loc(path, bindings[0], side.indent(bindings[0])) if len(bindings) == 1 \
                else None
        return self._imported_cause(path, side, used)

    def _call_cause(self, path: str, side: Side, line: int, column: int) -> Loc | None:
        """The one changed argument, at a call site of the function holding the statement,
        for a parameter the statement uses (the names at the finding's own line first, then
        the statement's); where it uses none, or no call passes it anything new, the one
        changed call of that function."""
        function = side.function_at(line)
        if function is None:
            return None
        # Last, no name at all: every call passes what it always passed, so what changed is
        # which call runs (`compute_bookmark_counts()` in place of `compute_click_counts()`).
        # A finding about one method call (`.load(cfg["path"])`) follows its arguments only:
        # the whole statement's names hold its receiver's too (every option of the reader).
        whole = [side.uses(line)[0]] if side.call_at(line, column) is None else []
        for names in (side.closure(side.names_at(line, column), line), *whole, set()):
            found = self._through_calls(self.by_shown[path], function, names, 0, frozenset())
            if found is None or len(found) > 1:
                return None
            if found:
                return next(iter(found))
        return None

    def _through_calls(self, key: str, defined: Defined, names: set[str], depth: int,
                       seen: frozenset[int]) -> set[Loc] | None:
        """The changed lines at the calls of `defined` that cause what `names` hold in it;
        None when a call site has several (which one is not told)."""
        if depth >= CALL_DEPTH or id(defined.node) in seen:
            return set()
        seen = seen | {id(defined.node)}
        used = [p for p in parameters(defined.node) if p in names]
        out: set[Loc] = set()
        for site, call in self._on_path(key, defined):
            side = self.file(site)
            try:
                given = {p: argument(call, defined, p) for p in used}
            except NotKnown:
                given = {}
                exprs = [call]
            else:
                exprs = [e for e in given.values() if e is not None]
            # a parameter the call leaves to its default: `def run(size="5 minutes")`
            at_default = self._default_cause(key, defined, [p for p, e in given.items()
                                                            if e is None])
            if at_default is not None:
                out.add(at_default)
                continue
            spans = ([(e.lineno, e.end_lineno or e.lineno) for e in exprs] if used
                     else [side.statement_span(call.lineno)])
            changed = sorted(n for first, last in spans for n in side.changed
                             if first <= n <= last)
            if changed:
                out.add(Loc(self.files[site], changed[0], side.indent(changed[0])))
                continue
            passed = side.closure({n.id for e in exprs for n in ast.walk(e)
                                   if isinstance(n, ast.Name)}, call.lineno)
            bindings = side.changed_bindings_of(passed, call.lineno)
            if len(bindings) > 1:
                return None
            if bindings:
                out.add(Loc(self.files[site], bindings[0], side.indent(bindings[0])))
                continue
            # `read(spark, settings.TOPIC)` and a changed `TOPIC: str = ...` in config.py
            imported = self._imported_cause(self.files[site], side, side.uses_of(exprs))
            if imported is not None:
                out.add(imported)
                continue
            caller = side.function_at(call.lineno)
            if caller is None or (used and not passed & set(parameters(caller.node))):
                continue  # what it passes is fixed there
            more = self._through_calls(site, caller, passed, depth + 1, seen)
            if more is None:
                return None
            out |= more
        return out

    def _default_cause(self, key: str, defined: Defined, left: list[str]) -> Loc | None:
        """The changed default (or the one changed binding it reads) of the parameters a
        call leaves to their defaults."""
        side = self.file(key)
        found = [e for p in left for e in [default(defined.node, p)] if e is not None]
        lines = sorted(n for e in found for n in side.changed
                       if e.lineno <= n <= (e.end_lineno or e.lineno))
        if not lines and found:
            lines = side.changed_bindings_of(side.uses_of(found)[0], found[0].lineno)
            lines = lines if len(lines) == 1 else []
        return Loc(self.files[key], lines[0], side.indent(lines[0])) if lines else None

    def _on_path(self, key: str, defined: Defined) -> list[tuple[str, ast.Call]]:
        """The calls of a function that made the finding's query, where the query says what
        it was started through: a call it was started through, or a call in a function it
        was started through (`read("clicks")` in `run_clicks()`); all of them otherwise."""
        sites = self._call_sites(key, defined)
        if not self.via:
            return sites
        kept = [(site, call) for site, call in sites if self._through(site, call)]
        kept = kept or [(site, call) for site, call in sites if (
            (holder := self.file(site).function_at(call.lineno)) is not None
            and any(self._through(s, c) for s, c in self._call_sites(site, holder)))]
        return kept or sites

    def _through(self, site: str, call: ast.Call) -> bool:
        """Whether the query was started through this call."""
        shown = self.files[site]
        return any(loc.path == shown and call.lineno <= loc.line <= (call.end_lineno
                                                                     or call.lineno)
                   for loc in self.via)

    def _call_sites(self, key: str, defined: Defined) -> list[tuple[str, ast.Call]]:
        """The calls of a function in the files of this version: by its name in its own file
        and where it is imported, as `module.name(...)` where the module is imported, and a
        method as `obj.name(...)` anywhere."""
        out: list[tuple[str, ast.Call]] = []
        name = defined.node.name
        for site in self.files:
            if site != self.job and not site.endswith(".py"):
                continue
            side = self.file(site)
            if side.tree is None:
                continue
            imports = self._imports_of(site, side)
            by_name = site == key or imports.get(name, ("", None))[1] == name
            for call in calls(side.calls(), name, by_name):
                func = call.func
                if (isinstance(func, ast.Attribute) and not defined.method
                        and not (isinstance(func.value, ast.Name) and func.value.id in imports)):
                    continue
                out.append((site, call))
        return out

    def _imports_of(self, site: str, side: Side) -> dict[str, tuple[str, str | None]]:
        """A file's imports (`at_calls.import_bindings`), read once a file."""
        if site not in self._imports:
            relpath = self.relpath.get(self.files[site], "")
            self._imports[site] = import_bindings(side.statements, relpath)
        return self._imports[site]

    def _imported_cause(self, path: str, side: Side,
                        used: tuple[set[str], set[tuple[str, str]]]) -> Loc | None:
        """The one changed binding, in another file, of what the statement (or a line of
        it: `used`, its names and `name.attribute` pairs) imports."""
        names, attributes = used
        imports = self._imports_of(self.by_shown[path], side)
        wanted: set[tuple[str, str]] = set()  # (root-relative module path, member name)
        for local, (module, member) in imports.items():
            if member == "*":  # what the file uses and binds nowhere else may come from it
                target = self._module(module)
                if target is not None:
                    wanted.update((target, n) for n in names - side.bound - set(imports)
                                  if n.isidentifier())
                continue
            if local not in names and not any(base == local for base, _ in attributes):
                continue
            # `from conf import settings` takes the module conf/settings.py, if there is one
            submodule = None if member is None else self._module(
                f"{module}/{member}" if "/" in module else f"{module}.{member}".lstrip("."))
            if submodule is not None:
                target, member = submodule, None
            else:
                target = self._module(module)
            if target is None:
                continue
            if member is not None and local in names:
                wanted.add((target, member))
            wanted.update((target, attr) for base, attr in attributes if base == local)
        causes = {(module, n) for module, member in wanted
                  for n in self.file(module).changed_bindings(member)}
        if len(causes) != 1:
            return None
        module, found = next(iter(causes))
        return Loc(self.files[module], found, self.file(module).indent(found))

    def _module(self, dotted: str) -> str | None:
        """The followed file of a module (`conf.settings`, or a root-relative path for a
        relative import), None when the job's code was not followed into it."""
        tail = dotted.replace(".", "/") if "/" not in dotted else dotted
        for candidate in (f"{tail}.py", f"{tail}/__init__.py"):
            found = [p for p in self.files if p.endswith(".py") and p != self.job
                     and (p == candidate or p.endswith("/" + candidate))]
            if len(found) == 1:
                return found[0]
        return None


def _one(path: str, side: Side, lines: set[int]) -> Loc | None:
    """The one line of `lines` in the file at `path`; None for none or several."""
    if len(lines) != 1:
        return None
    at = next(iter(lines))
    return Loc(path, at, side.indent(at))
