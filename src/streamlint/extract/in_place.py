"""What changes an object in place: a list's and a dict's methods (`outs.append(df)`,
`opts.update(...)`), a stream writer or reader configured as a statement, and what a helper
changed among its caller's objects.

Lists and builders are immutable values inside the interpreter (values never change under a
reader's feet), so each change rebinds whoever holds the object: the name, the scope that owns
it, and a caller that passed it in (`Env.params`, `Env.mutated`). A mixin of `Interpreter`
(extract/interpreter.py).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.symbolic import ABSENT, MUTATORS
from streamlint.extract.values import Env


class InPlace:
    def mutate(self, expr: cst.BaseExpression, env: Env) -> bool:
        """`aggs.append(...)`, `opts.update(...)`: the name now holds the changed value.

        Lists are tuples here (values never change under a reader's feet), so a mutating
        call rebinds the name. One we cannot compute makes the name unknown rather than
        leaving the old value looking current.
        """
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
            return False
        method = expr.func.attr.value
        if method not in MUTATORS:
            return self.configure(expr, env)
        current = self.ev(expr.func.value, env)
        if not isinstance(current, tuple | dict):
            return False
        args = [self.ev(arg.value, env) for arg in expr.args if arg.keyword is None
                and not arg.star]
        kwargs = {arg.keyword.value: self.ev(arg.value, env) for arg in expr.args
                  if arg.keyword is not None}
        updated: Any = None
        if isinstance(current, tuple):
            if method == "append" and len(args) == 1:
                updated = (*current, args[0])
            elif method == "extend" and len(args) == 1 and isinstance(args[0], tuple):
                updated = (*current, *args[0])
            elif method == "insert" and len(args) == 2 and isinstance(args[0], int):
                items = list(current)
                items.insert(args[0], args[1])
                updated = tuple(items)
            elif method == "remove" and len(args) == 1 and args[0] in current:
                items = list(current)
                items.remove(args[0])
                updated = tuple(items)
        elif method == "update" and (not args or isinstance(args[0], dict)):
            updated = {**current, **(args[0] if args else {}), **kwargs}
        elif method == "setdefault" and args:
            updated = {args[0]: args[1] if len(args) > 1 else None, **current}
        elif method == "pop" and args and args[0] in current:
            updated = {k: v for k, v in current.items() if k != args[0]}
        if updated is None:
            updated = self.opaque(expr, env)
        elif isinstance(current, dict):
            # A dict is one object wherever it is held (a helper filling the caller's dict):
            # it changes in place.
            for key in {*current, *updated}:
                if current.get(key, ABSENT) is not updated.get(key, ABSENT):
                    self.heap_write(current, key, current.get(key, ABSENT))
            current.clear()
            current.update(updated)
            return True
        self.assign(expr.func.value, updated, env, in_place=True)
        return True

    def configure(self, expr: cst.Call, env: Env) -> bool:
        """`writer.format("csv").option(...)` or `stream.foreachBatch(f)` as a statement:
        PySpark's DataStreamWriter and DataStreamReader methods change the object itself (and
        return it), so the name (or attribute) now holds the configured builder, as in a
        helper that configures the writer it is given (`registry.builder` names them)."""
        root: cst.BaseExpression = expr
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
            root = root.func.value
        if isinstance(root, cst.Name):
            current = env.names.get(root.value)
        elif isinstance(root, cst.Attribute):
            current = self.ev(root, env)
        else:
            return False
        if not registry.is_builder(current):
            return False
        result = self.ev(expr, env)
        if registry.is_builder(result):
            self.assign(root, result, env, in_place=True)
        return True

    def give_back(self, node: cst.Call, changed: dict[int | str, Any], env: Env,
                  args: list[Any], kwargs: dict[str, Any]) -> None:
        """A helper that appended to the list it was given, or configured the writer it was
        given (`add(outs, df)`, `configure(writer)`), changed the caller's object: the
        caller's name (or attribute, or item) holds the changed value from here on. A list
        the call also changed another way (a module's list, passed in and filled by a
        function the helper called) keeps both: what the helper appended goes after it."""
        changed, self.changed_args = dict(changed), {}
        positional = [arg for arg in node.args if arg.keyword is None]
        if any(arg.star for arg in node.args):
            positional = []  # positions not known past a *args
        for key, value in changed.items():
            if isinstance(key, int):
                arg = positional[key] if key < len(positional) else None
            else:
                arg = next((a for a in node.args if a.keyword is not None
                            and a.keyword.value == key), None)
            if arg is not None and isinstance(arg.value, cst.Name | cst.Attribute |
                                              cst.Subscript):
                given = (args[key] if key < len(args) else None) if isinstance(key, int) else (
                    kwargs.get(key))
                if isinstance(given, tuple) and isinstance(value, tuple) and len(value) >= len(
                        given) and all(a is b for a, b in zip(value, given, strict=False)):
                    now = self.ev(arg.value, env)
                    if isinstance(now, tuple) and now is not given:
                        value = (*now, *value[len(given):])
                self.assign(arg.value, value, env, in_place=True)
