"""What changes an object in place: a list's and a dict's methods (`outs.append(df)`,
`opts.update(...)`), a stream writer or reader configured as a statement, and what a helper
changed among its caller's objects.

Lists and builders are immutable values inside the interpreter (values never change under a
reader's feet), so each change rebinds whoever holds the object: the name, the scope that owns
it, and a caller that passed it in (`Env.params`, `Env.mutated`). A list the job built
(values.Items) also forwards to its changed self, so a holder none of those reach (an alias, a
closure, an attribute, a dict's item, `*args`, another module) reads the change too. A mixin of
`Interpreter` (extract/interpreter.py).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.symbolic import ABSENT, MUTATORS, digest
from streamlint.extract.values import Box, Env, Items
from streamlint.model import Unknown


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
            updated = list_changed(current, method, args)
        elif method == "update" and (not args or isinstance(args[0], dict)):
            updated = {**current, **(args[0] if args else {}), **kwargs}
        elif method == "setdefault" and args:
            updated = {args[0]: args[1] if len(args) > 1 else None, **current}
        elif method == "pop" and args and args[0] in current:
            updated = {k: v for k, v in current.items() if k != args[0]}
        if updated is None:
            # `outs.sort(key=...)`: an unknown that names what the list held.
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
        if isinstance(current, Items):
            updated = self.forward(current, updated)
        self.assign(expr.func.value, updated, env, in_place=True)
        return True

    def change_items(self, target: cst.Subscript, owner: tuple[Any, ...], env: Env,
                     value: Any = ABSENT) -> None:
        """`outs[0] = df`, `outs[:] = [...]` and (`value` ABSENT) `del outs[0]` on a list:
        a change in place. One not computed leaves an unknown naming what the list held."""
        element = target.slice[0].slice if len(target.slice) == 1 else None
        items: list[Any] = list(owner)
        updated: Any = None
        try:
            if isinstance(element, cst.Index):
                key = self.ev(element.value, env)
                if isinstance(key, int) and not isinstance(key, bool):
                    if value is ABSENT:
                        del items[key]
                    else:
                        items[key] = value
                    updated = tuple(items)
            elif isinstance(element, cst.Slice):
                bounds = [None if part is None else self.ev(part, env)
                          for part in (element.lower, element.upper, element.step)]
                if all(b is None or isinstance(b, int) for b in bounds):
                    if value is ABSENT:
                        del items[slice(*bounds)]
                        updated = tuple(items)
                    elif isinstance(value, tuple):
                        items[slice(*bounds)] = value
                        updated = tuple(items)
        except (IndexError, ValueError):
            updated = None
        if updated is None:
            updated = Unknown(f"{self.code(target)} changed in "
                              f"{self.code(target.value)} (#{digest(owner)})")
        if isinstance(owner, Items):
            updated = self.forward(owner, updated)
        self.assign(target.value, updated, env, in_place=True)

    def pop_item(self, node: cst.Call, env: Env) -> Any:
        """`df = outs.pop(0)` on a list: the item, and the list without it from here on
        (`ABSENT` when this is not such a call)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "pop"
                and isinstance(func.value, cst.Name | cst.Attribute | cst.Subscript)
                and len(node.args) <= 1 and not any(a.star or a.keyword for a in node.args)):
            return ABSENT
        current = self.ev(func.value, env)
        index = self.ev(node.args[0].value, env) if node.args else -1
        if not (isinstance(current, tuple) and current and isinstance(index, int)
                and -len(current) <= index < len(current)):
            return ABSENT
        self.mutate(node, env)
        return current[index]

    def forward(self, old: Items, new: Any) -> Any:
        """A list changed in place: whoever holds any version of it reads `new` from here on
        (`latest`). Logged as a heap write, so a branch's change is undone before the next
        branch runs and the branches' versions become a choice (extract/heap.py)."""
        if old.box is None:
            old.box = Box(now=old)
        if isinstance(new, tuple) and not isinstance(new, Items):
            new = Items(new)
        if isinstance(new, Items):
            new.box = old.box
        self.heap_write(old.box, "now", old.box["now"])
        old.box["now"] = new
        return new

    @staticmethod
    def latest(value: Any) -> Any:
        """What a list read through any holder is now, after the changes made in place."""
        if type(value) is Items and value.box is not None:
            return value.box["now"]
        return value

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
                if isinstance(given, Items):
                    continue  # forwarded already: the caller's name reads the change
                if isinstance(given, tuple) and isinstance(value, tuple) and len(value) >= len(
                        given) and all(a is b for a, b in zip(value, given, strict=False)):
                    now = self.ev(arg.value, env)
                    if isinstance(now, tuple) and now is not given:
                        value = (*now, *value[len(given):])
                self.assign(arg.value, value, env, in_place=True)


def list_changed(current: tuple[Any, ...], method: str, args: list[Any]) -> tuple[Any, ...] | None:
    """What `current.method(*args)` leaves in a list; None where that is not known."""
    if method in ("reverse", "sort", "clear", "pop") and args and not isinstance(
            args[0], int):
        return None  # `sort(key=...)` only; a pop at an index not known
    if method == "reverse" and not args:
        return tuple(reversed(current))
    if method == "clear" and not args:
        return ()
    if method == "pop" and len(args) <= 1 and current and (
            not args or -len(current) <= args[0] < len(current)):
        items = list(current)
        items.pop(*args)
        return tuple(items)
    if method == "append" and len(args) == 1:
        return (*current, args[0])
    if method == "extend" and len(args) == 1 and isinstance(args[0], tuple):
        return (*current, *args[0])
    if method == "insert" and len(args) == 2 and isinstance(args[0], int):
        items = list(current)
        items.insert(args[0], args[1])
        return tuple(items)
    if method == "remove" and len(args) == 1 and args[0] in current:
        items = list(current)
        items.remove(args[0])
        return tuple(items)
    return None
