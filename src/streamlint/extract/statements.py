"""The interpreter's statements: blocks, assignments, branches, loops, imports, classes.

A mixin of `Interpreter` (extract/interpreter.py), which holds the state these methods use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from streamlint.extract import heap, registry
from streamlint.extract.bindings import import_star, member, module_ref
from streamlint.extract.conditions import compared_with_literal
from streamlint.extract.symbolic import (
    ABSENT,
    Raised,
    Return,
    choose,
    digest,
    inert,
    is_plain,
    started_in_branches,
    text_of,
)
from streamlint.extract.values import Class, Env, EnvDefault, Function, Instance, Items, shield
from streamlint.model import Condition, Loc, Outcome, Unknown


class Statements:
    def run_block(self, body: Sequence[cst.CSTNode], env: Env) -> None:
        for stmt in body:
            self.run_statement(stmt, env)

    def run_statement(self, stmt: cst.CSTNode, env: Env) -> None:
        self.budget.step(self, stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.run_small(small, env)
        elif isinstance(stmt, cst.FunctionDef):
            env.names[stmt.name.value] = Function(stmt, env, defaults=self.defaults(
                stmt.params, env), context=self.context)
            if stmt.decorators:  # a pipeline's table or flow: the runtime calls it
                function = env.names[stmt.name.value]
                values = [self.ev(item.decorator, env) for item in stmt.decorators]
                wrapped = self.decorate(stmt, function, values)
                registry.fire("decorated", self, stmt, function, values, wrapped)
                env.names[stmt.name.value] = wrapped
        elif isinstance(stmt, cst.ClassDef):
            env.names[stmt.name.value] = self.define_class(stmt, env)
        elif isinstance(stmt, cst.If):
            self.run_if(stmt, env)
        elif isinstance(stmt, cst.For):
            self.run_for(stmt, env)
        elif isinstance(stmt, cst.While):
            self.run_unsure(stmt.body.body, env, uncertain=0)
            if stmt.orelse is not None:
                self.run_block(stmt.orelse.body.body, env)
        elif isinstance(stmt, cst.Match):
            arms = [lambda scope, case=case: self.run_block(case.body.body, scope)
                    for case in stmt.cases]
            self.run_alternatives(env, arms, f"the case of `{self.code(stmt.subject)}`",
                                  self.loc(stmt))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self.ev(item.item, env)
                if item.asname is not None:
                    self.assign(item.asname.name, value, env)
            with shield(self.effects):  # its context manager may swallow what it raises
                self.run_block(stmt.body.body, env)
        elif isinstance(stmt, cst.Try):
            # The try block and each handler are alternatives only the run decides between.
            def attempt(scope: Env) -> None:
                self.run_block(stmt.body.body, scope)
                if stmt.orelse is not None:
                    self.run_block(stmt.orelse.body.body, scope)

            handlers = [lambda scope, h=h: self.run_block(h.body.body, scope)
                        for h in stmt.handlers]
            labels = ", ".join(self.code(h.type) if h.type else "any error"
                               for h in stmt.handlers)
            self.run_alternatives(env, [attempt, *handlers], Outcome(f"no {labels} is raised"),
                                  self.loc(stmt))
            if stmt.finalbody is not None:
                self.run_block(stmt.finalbody.body.body, env)
        elif isinstance(stmt, cst.IndentedBlock):
            self.run_block(stmt.body, env)

    def run_small(self, small: cst.CSTNode, env: Env) -> None:
        if isinstance(small, cst.Assign):
            value = self.ev(small.value, env)
            for target in small.targets:
                self.assign(target.target, value, env)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.assign(small.target, self.ev(small.value, env), env)
        elif isinstance(small, cst.AugAssign):
            current = self.ev(small.target, env)
            operand = self.ev(small.value, env)
            op = type(small.operator).__name__.replace("Assign", "")
            # `outs += [df]` extends the list in place, as `outs.append(df)` does.
            result = self.binary(op, current, operand, small)
            if op == "Add" and isinstance(current, Items):
                result = self.forward(current, result)
            self.assign(small.target, result, env,
                        in_place=op == "Add" and isinstance(current, tuple))
        elif isinstance(small, cst.Expr):
            if not self.mutate(small.value, env):
                self.ev(small.value, env)
        elif isinstance(small, cst.Return):
            raise Return(None if small.value is None else self.ev(small.value, env))
        elif isinstance(small, cst.Raise) and self.frames:
            raise Raised  # (at a module's top level it is read past, as code that may run)
        elif isinstance(small, cst.Import | cst.ImportFrom) and self.loader is not None and (
                self.loader.run_import(self, small, env)):
            return  # a module of the repository, followed (`modules.py`)
        elif isinstance(small, cst.Import):
            for alias in small.names:
                full = self.code(alias.name)
                if alias.asname is not None:
                    env.names[alias.asname.name.value] = module_ref(full)
                else:
                    top = full.split(".")[0]
                    env.names[top] = module_ref(top)
        elif isinstance(small, cst.ImportFrom):
            if small.module is None:
                return
            module = self.code(small.module)
            if isinstance(small.names, cst.ImportStar):
                import_star(module, env)
                return
            for alias in small.names:
                name = self.code(alias.name)
                bound = alias.asname.name.value if alias.asname else name
                env.names[bound] = member(module, name)
        elif isinstance(small, cst.Del):
            self.delete(small.target, env)
        elif isinstance(small, cst.Global):
            env.global_names.update(name.name.value for name in small.names)
        elif isinstance(small, cst.Nonlocal | cst.Pass | cst.Break | cst.Continue):
            return

    def delete(self, target: cst.BaseExpression, env: Env) -> None:
        """`del outs[0]`, `del opts["path"]`: a change in place (a name deleted: nothing)."""
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self.delete(element.value, env)
        elif isinstance(target, cst.Subscript):
            owner = self.ev(target.value, env)
            element = target.slice[0].slice if len(target.slice) == 1 else None
            if isinstance(owner, tuple):
                self.change_items(target, owner, env)
            elif isinstance(owner, dict) and isinstance(element, cst.Index):
                key = self.ev(element.value, env)
                if key in owner:
                    self.heap_write(owner, key, owner[key])
                    del owner[key]

    def run_if(self, stmt: cst.If, env: Env) -> None:
        test = self.ev(stmt.test, env)
        orelse = stmt.orelse
        if is_plain(test) and not isinstance(test, EnvDefault):
            if test:
                self.run_block(stmt.body.body, env)
            elif isinstance(orelse, cst.If):
                self.run_if(orelse, env)
            elif isinstance(orelse, cst.Else):
                self.run_block(orelse.body.body, env)
            return
        # The condition is only known at run time: read both branches, and mark what differs.
        def otherwise(scope: Env) -> None:
            if isinstance(orelse, cst.If):
                self.run_if(orelse, scope)
            elif isinstance(orelse, cst.Else):
                self.run_block(orelse.body.body, scope)

        compared = compared_with_literal(self, stmt.test, env)

        def when(holds: bool, run: Any) -> Any:
            if compared is None:
                return run

            def under(scope: Env) -> None:
                self.effects.conditions.append(Condition(*compared, holds))
                try:
                    run(scope)
                finally:
                    self.effects.conditions.pop()
            return under

        self.run_alternatives(env, [when(True, lambda scope: self.run_block(stmt.body.body,
                                                                            scope)),
                                    when(False, otherwise)],
                              self.condition(stmt.test), self.loc(stmt))

    def run_alternatives(self, env: Env, branches: list[Any], condition: str, loc: Loc) -> None:
        """Run each branch from the same state; a name they leave different is a choice."""
        before = dict(env.names)
        outcomes: list[dict[str, Any]] = []
        returns: list[Return] = []
        returned: list[int] = []
        raised: list[int] = []
        started: list[list[Any]] = []
        heap_mark = heap.watch(self)
        branch_writes: list[heap.Writes] = []
        for number, branch in enumerate(branches):
            env.names = dict(before)
            mark = len(self.effects.queries)
            writes = self.effects.heap_writes
            self.effects.uncertain += 1
            try:
                branch(env)
            except Return as ret:
                returns.append(ret)
                # A branch that wrote beyond its names (`self.df = ...`) before returning
                # leaves that for the code after the `if` to see: no guard clause then.
                returned.append(number if self.effects.heap_writes == writes else -1)
            except Raised:
                raised.append(number)  # `else: raise ...`: nothing after it on this path
            finally:
                self.effects.uncertain -= 1
                branch_writes.append(heap.undo(self, heap_mark))
            outcomes.append(dict(env.names))
            started.append(self.effects.queries[mark:])
            del self.effects.queries[mark:]
        heap.merge(self, branch_writes, condition, loc)
        if len(raised) == len(branches):
            raise Raised
        if len(returns) < len(branches) - len(raised) and self.guard_clause(
                returns, returned, started, condition, loc):
            returns, raised = [], raised + returned  # what follows sees neither
        outcomes = [o for number, o in enumerate(outcomes) if number not in raised] or outcomes
        kept = started_in_branches(started, condition, loc)
        for writer in (w for writers in started for w in writers):
            # A branch's query not kept is the kept one's alternative: seen, not lost.
            self.effects.set_aside(writer)
        self.effects.queries.extend(kept)
        env.names = dict(outcomes[0])
        for name in set().union(*outcomes):
            values = [outcome.get(name, before.get(name)) for outcome in outcomes]
            merged = values[0]
            for other in values[1:]:
                if other is not merged and other != merged:
                    merged = choose(merged, other, condition, loc)
            env.names[name] = merged
        if len(returns) == len(branches) - len(raised) and len(branches) > 1:
            # Every branch returns (an if/elif/else of returns): nothing after runs, and the
            # value is a choice among all of them, not the first branch's alone.
            value = returns[0].value
            for other in returns[1:]:
                if other.value is not value and other.value != value:
                    value = choose(value, other.value, condition, loc)
            raise Return(value)
        if returns:  # an early return: what follows the `if` is not read (a known limit)
            raise Return(choose(returns[0].value, returns[0].value, condition, loc))

    def guard_clause(self, returns: list[Return], returned: list[int],
                     started: list[list[Any]], condition: str, loc: Loc) -> bool:
        """A guard clause: in a function, some branches return early with no DataFrame and
        start no query (`if not topic: return None`), the others go on. The code after it
        runs (as uncertain, to the function's end), where the query usually is; what the
        early returns gave is a choice with what the function returns at its end."""
        if not returns or len(returned) == len(started) or not self.guards or -1 in returned:
            return False
        current = self.frames[-1].node
        if any(frame.node is current for frame in self.frames[:-1]):
            return False  # a recursive call's base case: reading past it recurses again
        if any(started[n] or not inert(r.value)
               for n, r in zip(returned, returns, strict=True)):
            return False
        if not self.guards[-1]:  # writes from here on outlive the early return's path
            self.guard_writes.append(len(self.effects.heap_log))
        self.guards[-1].extend((r.value, condition, loc) for r in returns)
        self.effects.uncertain += len(returns)
        return True

    def heap_write(self, owner: Any, key: Any, old: Any) -> None:
        """Record a write that outlives its scope; after a guard clause, with the value it
        replaced (extract/calls.py makes the two a choice when the function ends)."""
        self.effects.heap_writes += 1
        if self.guard_writes or self.heap_watch:
            self.effects.heap_log.append((owner, key, old))

    def run_for(self, stmt: cst.For, env: Env) -> None:
        items = self.ev(stmt.iter, env)
        if isinstance(items, dict):
            items = tuple(items)
        if isinstance(items, tuple) and 0 < len(items) <= 50:
            for item in items:
                self.assign(stmt.target, item, env)
                self.run_block(stmt.body.body, env)
        else:
            self.assign(stmt.target, self.loop_item(stmt, items), env)
            self.run_unsure(stmt.body.body, env)
        if stmt.orelse is not None:
            self.run_block(stmt.orelse.body.body, env)

    def run_unsure(self, body: Sequence[cst.CSTNode], env: Env, uncertain: int = 1) -> None:
        """A loop's body, which may run any number of times, even none: a `raise` in it
        ends no path."""
        self.effects.uncertain += uncertain
        try:
            self.run_block(body, env)
        except Raised:
            pass
        finally:
            self.effects.uncertain -= uncertain

    def loop_item(self, stmt: cst.For, items: Any) -> Unknown:
        """An item of what a loop runs over, not known one by one: named with a digest of
        the whole (a list chosen at run time, an unknown's text), so a change to what it
        holds is a change to the item. A list read as empty whose loop still starts a query
        was filled where streamlint did not see: the module's code stands for it."""
        label = f"{self.code(stmt.target)} (an item of {self.code(stmt.iter)}"
        if items == ():
            return Unknown(f"{label}, read as empty: #{self.module_code()})",
                           shown=self.code(stmt.target))
        return Unknown(f"{label}: #{digest(items)})", shown=self.code(stmt.target))

    def assign(self, target: cst.CSTNode, value: Any, env: Env, in_place: bool = False) -> None:
        """Bind `target` to `value`. `in_place`: the object the name holds was changed (a
        list appended to, a writer configured), so whoever holds it sees the change: the
        enclosing scope that owns the name, and a caller that passed it in."""
        if isinstance(target, cst.Name):
            name = target.value
            if name in env.global_names:
                env = self.context.globals
                self.heap_write(env.names, name, env.names.get(name, ABSENT))
            elif in_place and name not in env.names:
                owner = env.parent
                while owner is not None and name not in owner.names:
                    owner = owner.parent
                if owner is not None:  # a module's list filled in a function
                    env = owner
                    self.heap_write(env.names, name, env.names[name])
            elif in_place and name in env.params:
                env.mutated.add(name)
            elif not in_place:
                env.params.pop(name, None)  # rebound: no longer the caller's object
                env.mutated.discard(name)
            env.names[name] = value
        elif isinstance(target, cst.Tuple | cst.List):
            elements = [e.value for e in target.elements]
            if isinstance(value, tuple) and len(value) == len(elements):
                for element, item in zip(elements, value, strict=True):
                    self.assign(element, item, env)
            else:
                for i, element in enumerate(elements):  # shown as the name it is bound to
                    self.assign(element, Unknown(f"{text_of(value)}[{i}]",
                                                 shown=self.code(element)), env)
        elif isinstance(target, cst.Attribute):
            owner = self.ev(target.value, env)
            if isinstance(owner, Instance | Class):
                name = target.attr.value
                self.heap_write(owner.attributes, name, owner.attributes.get(name, ABSENT))
                owner.attributes[name] = value
        elif isinstance(target, cst.Subscript):
            owner = self.ev(target.value, env)
            key = self.ev(target.slice[0].slice.value, env) if target.slice and isinstance(
                target.slice[0].slice, cst.Index) else None
            if isinstance(owner, tuple):
                self.change_items(target, owner, env, value)
            elif isinstance(owner, dict) and isinstance(key, str | int):
                self.heap_write(owner, key, owner.get(key, ABSENT))
                owner[key] = value
            elif isinstance(owner, Unknown) and isinstance(target.value, cst.Name | cst.Attribute):
                # `opts["checkpointLocation"] = path` on options streamlint cannot see: they
                # stay unknown, but what was put in them is part of what they are now.
                self.assign(target.value, Unknown(
                    f"{owner.text} with [{text_of(key)}] = {text_of(value)}",
                    shown=str(owner)), env)

    def define_class(self, node: cst.ClassDef, env: Env) -> Class:
        cls = Class(node, env, context=self.context)
        for base in node.bases:
            parent = self.ev(base.value, env)
            if isinstance(parent, Class):
                cls.bases.append(parent)
                cls.attributes.update(parent.attributes)
                cls.methods.update(parent.methods)
                cls.method_defaults.update(parent.method_defaults)
        body_env = Env(env)
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                cls.methods[stmt.name.value] = stmt
                cls.method_defaults[stmt.name.value] = self.defaults(stmt.params, body_env)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        cls.attributes.setdefault("__fields__", ())
                        cls.attributes["__fields__"] += (small.target.value,)
                    self.run_small(small, body_env)
        for name, value in body_env.names.items():
            cls.attributes[name] = value
        return cls

    # -- calls --------------------------------------------------------------------------

