"""One version of a job as at_change.py reads it: its file and the repository files its code was
followed into, and where in them the change causing a finding is (the statement's own
changed line, the changed binding of what it uses, the changed argument of a call of its
function, the changed binding in a module it imports)."""

from __future__ import annotations

import ast

from streamlint.model import Loc
from streamlint.policy import at_bodies
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

Source = tuple[str, str, str]  # (root-relative path, path as locations show it, text)
Counterpart = tuple[str, str, str | None]  # the same, None for a file this version lacks
CALL_DEPTH = 3  # `main()` calls `run(topic)` calls `read(topic)`: how far calls are followed


class Version:
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
        # The calls the finding's place was made through (`Finding.new_calls`: an operator's,
        # else those its query was started through), set for each finding: of a function's
        # calls, those that made the query are followed.
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
        found = (at_bodies.branch_cause(side, line) or side.cause(line, column)
                 or at_bodies.def_cause(side, line))
        if found is not None:
            return Loc(path, found, side.indent(found))
        # the one changed binding of what the finding's own line reads, where the statement
        # as a whole reads several (a chain of options, one of which reads what changed);
        # several, or one beside a parameter passed something new: which is not told
        used = side.uses_at(line, column)
        bindings = side.changed_bindings_of(used[0], line)
        if len(bindings) == 1 and not self._passed_changed(path, side, line, used[0]):
            return Loc(path, bindings[0], side.indent(bindings[0]))
        if bindings:
            return None
        at_line = self._imported_cause(path, side, used)
        if at_line is not None:
            return at_line
        # A function the finding's own line names (`.foreachBatch(upsert)`, or an `if` it
        # points at in its branches), nearer than what the rest of its statement uses; none
        # where the statement itself lost a line (a removed `.option(...)`)
        names = set() if at_bodies.cut_inside(side, line) else (
            side.names_at(line, column) | at_bodies.branch_names(side, line))
        named = at_bodies.body_causes(side, names, line)
        # a finding about one setting is about that call's arguments (its own line, above),
        # not what the rest of its chain uses
        setting = side.setting_at(line, column) is not None
        if named or (side.bound_changed(line) and not setting):
            return _one(path, side, named)  # several: not told which
        return (self._imported_cause(path, side, side.uses_at(line, column) if setting
                                     else side.uses(line))
                or self._call_cause(path, side, line, column)
                or _one(path, side, at_bodies.body_causes(side, side.closure(names, line),
                                                          line))
                or self._condition_cause(path, side, line)
                or _one(path, side, at_bodies.header_changed(side, line))
                or _one(path, side, at_bodies.after_cause(side, line)))

    def reach_cause(self, path: str, line: int) -> Loc | None:
        """For code streamlint did not read (UN03), reported because what can reach it
        changed (extract/reach.py: the function holding it, for a method the methods of its
        class that reach it): the first changed line of code of the function holding it,
        else of the functions calling it, nearest first, to CALL_DEPTH; several at one
        level: which is not told."""
        key = self.by_shown[path]
        if self.file(key).tree is None or line in self.file(key).changed:
            return None
        holder = self.file(key).function_at(line)
        level = [(key, holder)] if holder is not None else []
        seen: set[int] = set()
        for _ in range(CALL_DEPTH + 1):
            found: set[Loc] = set()
            callers: list[tuple[str, Defined]] = []
            for site, defined in level:
                if id(defined.node) in seen:
                    continue
                seen.add(id(defined.node))
                side = self.file(site)
                changed = at_bodies.changed_code(side, defined.node)
                if changed is not None:
                    found.add(Loc(self.files[site], changed, side.indent(changed)))
                    continue
                callers += [(at, caller) for at, call in self.call_sites(site, defined)
                            for caller in [self.file(at).function_at(call.lineno)]
                            if caller is not None]
            if found:
                return found.pop() if len(found) == 1 else None
            level = callers
        return None

    def _condition_cause(self, path: str, side: Side, line: int) -> Loc | None:
        """Last, which branch runs: the changed condition of an `if` whose branch holds the
        finding's line, or the one changed binding of what it reads (`MODE = "dedupe"` for
        the `dropDuplicates` under `if MODE == "dedupe":`), innermost `if` first; none
        where what the statement reads changed itself (its cause is that, not told which)."""
        if side.changed_bindings_of(side.uses(line)[0], line):
            return None
        for condition in side.conditions(line):
            first, last = side.statement_span(condition.lineno)
            changed = sorted(n for n in side.changed if first <= n <= last)
            bindings = changed or side.changed_bindings_of(
                side.uses_of([condition.test])[0], condition.lineno)
            if bindings:
                return _one(path, side, set(bindings[:1]) if changed else set(bindings))
        return None

    def _passed_changed(self, path: str, side: Side, line: int, names: set[str]) -> bool:
        """Whether a parameter among `names` of the function holding `line` may have been
        passed something new (`options` filled by the caller, then given one more entry in
        the function: a changed binding there is not told to be the cause)."""
        function = side.function_at(line)
        # a method's object is not one: its fields are followed by name (`self.topic`)
        given = parameters(function.node)[1 if function.method else 0:] if function else []
        if function is None or not names & set(given):
            return False
        found = self._through_calls(self.by_shown[path], function, names & set(given), 0,
                                    frozenset())
        return found is None or bool(found)

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
        # at an `if`, what its branches read too (`writer` given by the caller, then
        # `writer.trigger(...)` in each branch)
        on_line = side.names_at(line, column) | at_bodies.branch_names(side, line)
        for names in (side.closure(on_line, line), *whole, set()):
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
            # `options = build_format_options(cfg)` passed, and that function's code changed
            bodies = at_bodies.body_causes(side, passed, call.lineno) if exprs else set()
            if len(bodies) > 1:
                return None
            if bodies:
                out.add(Loc(self.files[site], min(bodies), side.indent(min(bodies))))
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
        sites = self.call_sites(key, defined)
        if not self.via:
            return sites
        kept = [(site, call) for site, call in sites if self._through(site, call)]
        kept = kept or [(site, call) for site, call in sites if (
            (holder := self.file(site).function_at(call.lineno)) is not None
            and any(self._through(s, c) for s, c in self.call_sites(site, holder)))]
        return kept or sites

    def _through(self, site: str, call: ast.Call) -> bool:
        """Whether the query was started through this call."""
        shown = self.files[site]
        return any(loc.path == shown and call.lineno <= loc.line <= (call.end_lineno
                                                                     or call.lineno)
                   for loc in self.via)

    def call_sites(self, key: str, defined: Defined) -> list[tuple[str, ast.Call]]:
        """The calls of a function in the files of this version: by its name in its own file
        and where it is imported, as `module.name(...)` where the module is imported, a
        method as `obj.name(...)` anywhere, a class's `__init__` as the class."""
        out: list[tuple[str, ast.Call]] = []
        name = defined.node.name
        if name == "__init__":  # `Pipeline(spark, "orders")` calls Pipeline's __init__
            name = self.file(key).owners.get(id(defined.node), name)
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
