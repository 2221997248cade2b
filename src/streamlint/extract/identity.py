"""A name stands for the code it resolves to: content-addressed names for unread code.

What can reach streaming code streamlint did not read is compared between two versions
(extract/reach.py). A helper moved to another module, or renamed, with the same code, is no
edit of what that code does; an edit of the helper's code (or of what it uses in turn,
wherever that is) is. So each module-level name the code reads is replaced by the identity
of what it is bound to: a digest of the binding statements' essential code (their own names
read the same way, in their own module), followed through imports of the repository's
modules and re-exports; a name imported from outside the repository stands for its dotted
origin (`pyspark.sql.SparkSession`), which no edit of the repository changes; a name bound
nowhere (a builtin) for itself.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from streamlint.extract.registry import current_name
from streamlint.extract.scopes import binds, module_names
from streamlint.extract.symbolic import digest

# A module of the repository by its import (dotted name, relative level, the importing
# module's path): (its path, its text); None when it is not one of the repository's.
Finder = Callable[[str, int, str], "tuple[str, str] | None"]


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def no_repository(dotted: str, level: int, importer: str) -> None:
    return None


class Module:
    """A module's top-level statements, read for what they bind: `statement(i)` gives the
    essential syntax tree of statement i (see `code_facts._essential`), parsed when asked.

    A key by identity (two versions' modules are never one): a plain class, which costs
    less to define than a dataclass (compiled with `exec` on every run)."""

    def __init__(self, path: str, bound: list[set[str]],
                 statement: Callable[[int], ast.stmt | None], star: list[int] | None = None
                 ) -> None:
        self.path = path
        self.bound = bound
        self.statement = statement
        self.star = [] if star is None else star  # `from m import *` statements

    def binders(self, name: str) -> list[int]:
        return [i for i, names in enumerate(self.bound) if name in names]


class Identity:
    """Resolves the module-level names of code to what they stand for (one run; memoized)."""

    def __init__(self, find: Finder, essential: Callable[[ast.AST], ast.AST],
                 module_of: Callable[[str, str], Module]) -> None:
        self.find = find
        self.essential = essential
        self.module_of = module_of  # (path, text) -> Module
        self.memo: dict[tuple[Module, str], str] = {}
        self.stack: list[tuple[Module, str]] = []
        self.modules: dict[str, Module] = {}

    def code(self, tree: ast.AST, where: Module, own: str | None = None) -> str:
        """`tree`'s code with each module-level name it reads replaced by its identity
        (`own`, the name `tree` defines, by a placeholder: a def renamed is the same def),
        and what each import inside it binds by the identity of what it imports. All are
        resolved before any is written into the tree (resolving may read it again)."""
        members = {id(node.value): node for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
        attributes = {key: node.attr for key, node in members.items()}
        names = [(name, "_" if name.id == own else self.name(name.id, where)
                  if id(name) not in attributes else self.member(name.id, attributes[id(name)],
                                                                 where))
                 for name in module_names(tree)]
        # `dlt.apply_changes` read as `dlt.create_auto_cdc_flow`: a library's former name
        # (registry.former_names) is its current one.
        current = [(members[id(name)], self._current(name.id, members[id(name)].attr, where))
                   for name, _ in names if id(name) in members]
        imports = [(alias, self._imported(node, alias.asname or alias.name.split(".")[0],
                                          where))
                   for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                   for alias in node.names if alias.name != "*"]
        saved = [(node, node.id) for node, _ in names]
        aliases = [(alias, alias.name, alias.asname) for alias, _ in imports]
        renamed = tree.name if own is not None and isinstance(tree, _DEFINITIONS) else None
        for node, value in names:
            node.id = value
        for member, value in current:
            member.attr = value
        for alias, value in imports:
            alias.asname = alias.asname or alias.name.split(".")[0]
            alias.name = value
        if isinstance(tree, _DEFINITIONS) and renamed is not None:
            tree.name = "_"
        try:
            return ast.unparse(tree)
        except (ValueError, RecursionError):
            return ast.dump(tree)
        finally:
            for node, original in saved:
                node.id = original
            for member, _ in current:
                member.attr = attributes[id(member.value)]
            for alias, name, asname in aliases:
                alias.name, alias.asname = name, asname
            if isinstance(tree, _DEFINITIONS) and renamed is not None:
                tree.name = renamed

    def _current(self, name: str, attribute: str, where: Module) -> str:
        """What `name.attribute` is called now, when `name` is a module from outside the
        repository imported whole (`import dlt`); `attribute` for anything else."""
        binders = where.binders(name)
        tree = where.statement(binders[0]) if len(binders) == 1 else None
        if not isinstance(tree, ast.Import):
            return attribute
        dotted = [a.name for a in tree.names if (a.asname or a.name) == name]
        if len(dotted) != 1 or self.find(dotted[0], 0, where.path) is not None:
            return attribute
        return current_name(dotted[0], attribute)

    def name(self, name: str, where: Module) -> str:
        return self._memo((where, name), lambda: self._resolve(name, where))

    def member(self, name: str, attribute: str, where: Module) -> str:
        """What `name.attribute` stands for: for a class of the repository, the member
        alone (what it reads of its class, the class's bases and decorators), not the
        whole class: a framework's utility class holds many members, and an edit of one
        the code does not read cannot reach it."""
        found = self._class(name, where, 0)
        if found is None or found[1].keywords or not any(
                attribute in binds(s) for s in found[1].body):
            return self.name(name, where)
        return self._member(*found, attribute)

    def _member(self, module: Module, cls: ast.ClassDef, attribute: str) -> str:
        return self._memo((module, f"{cls.name}.{attribute}"),
                          lambda: self._read_member(module, cls, attribute))

    def _read_member(self, module: Module, cls: ast.ClassDef, attribute: str) -> str:
        own = set().union(*(binds(s) for s in cls.body))
        header = ast.ClassDef("_", cls.bases, [], [ast.Pass()], cls.decorator_list)
        parts = [self.code(header, module)]
        for statement in (s for s in cls.body if attribute in binds(s)):
            parts.append(self.code(statement, module))
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and node.id in own - {attribute}:
                    parts.append(self._member(module, cls, node.id))  # a class attribute
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                        and node.value.id in ("self", "cls"):
                    # Another member, or what an instance holds: then the whole class.
                    parts.append(self._member(module, cls, node.attr) if node.attr in own
                                 else self.name(cls.name, module))
        return f"<{digest(tuple(parts))}>"

    def _class(self, name: str, where: Module, depth: int) -> tuple[Module, ast.ClassDef] | None:
        """The repository class `name` is bound to, followed through imports; None when it
        is bound to anything else, or more than once."""
        binders = where.binders(name)
        if len(binders) != 1 or depth > 8:
            return None
        tree = where.statement(binders[0])
        if isinstance(tree, ast.ClassDef) and tree.name == name:
            return where, tree
        if not isinstance(tree, ast.ImportFrom) or not tree.module:
            return None
        alias = next((a for a in tree.names if (a.asname or a.name) == name), None)
        found = self.find(tree.module, tree.level, where.path) if alias else None
        if alias is None or found is None:
            return None
        return self._class(alias.name, self._module(*found), depth + 1)

    def _memo(self, key: tuple[Module, str], compute: Callable[[], str]) -> str:
        if not self.stack and len(self.memo) > 50_000:
            self.memo.clear()
            self.modules.clear()
        if key in self.memo:
            return self.memo[key]
        if key in self.stack:  # recursion: the same by its distance, whatever its name
            return f"<rec{len(self.stack) - self.stack.index(key)}>"
        self.stack.append(key)
        try:
            found = compute()
        finally:
            self.stack.pop()
        self.memo[key] = found
        return found

    def _resolve(self, name: str, where: Module) -> str:
        binders = where.binders(name)
        if not binders and not where.star:
            return name  # a builtin, or a name bound nowhere: itself
        parts: list[str] = []
        for i in binders or where.star:
            tree = where.statement(i)
            if tree is None:
                return f"<unreadable {where.path}:{i}:{name}>"
            if isinstance(tree, ast.Import | ast.ImportFrom):
                imported = self._imported(tree, name, where)
                parts.append(imported if imported.startswith("<") else f"<{imported}>")
            else:
                # A helper's own name is how it is called, unless a decorator may read it
                # (`@dlt.table` names a table by its function).
                own = name if isinstance(tree, _DEFINITIONS) and tree.name == name \
                    and not tree.decorator_list else None
                parts.append(self.code(tree, where, own))
        if len(parts) == 1 and parts[0].startswith("<"):
            return parts[0]  # imported (or re-exported): what it stands for where defined
        return f"<{digest(tuple(parts))}>"

    def _imported(self, tree: ast.Import | ast.ImportFrom, name: str, where: Module) -> str:
        """What `name` stands for when an import binds it."""
        if isinstance(tree, ast.Import):
            dotted = [a.name for a in tree.names if (a.asname or a.name.split(".")[0]) == name]
            return "import " + ", ".join(self._whole(d, 0, where) for d in dotted)
        if any(a.name == "*" for a in tree.names):
            found = self.find(tree.module or "", tree.level, where.path)
            if found is None:
                return f"{'.' * tree.level}{tree.module}:*"
            module = self._module(*found)
            return self.name(name, module) if module.binders(name) or module.star else name
        base = tree.module or ""
        for alias in tree.names:
            if (alias.asname or alias.name) != name:
                continue
            found = self.find(base, tree.level, where.path) if base or tree.level else None
            origin = f"{'.' * tree.level}{base}"
            if found is None:  # outside the repository: its origin, by its current name
                return f"{origin}:{current_name(origin, alias.name)}"
            module = self._module(*found)
            if module.binders(alias.name) or module.star:
                return self.name(alias.name, module)
            # Not defined there: a submodule (`from pkg import mod`), or made at run time.
            return self._whole(f"{base}.{alias.name}", tree.level, where)
        return name

    def _whole(self, dotted: str, level: int, where: Module) -> str:
        """A module imported as a whole: its path and essential code when the repository's."""
        found = self.find(dotted, level, where.path)
        if found is None:
            return f"{'.' * level}{dotted}"
        tree = _parsed(found[1])
        return digest(ast.unparse(self.essential(tree)) if tree is not None else found[1])

    def _module(self, path: str, text: str) -> Module:
        if path not in self.modules:
            self.modules[path] = self.module_of(path, text)
        return self.modules[path]


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
