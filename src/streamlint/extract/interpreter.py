"""A small symbolic interpreter for job files: it follows what a reader would follow.

It walks statements in order, binds names to symbolic values, calls the file's own helper
functions and methods with their real arguments, and leaves everything it cannot know as an
`Unknown` carrying the code that produces it. It never imports or runs the user's code.

Python's statements, expressions and calls are `statements`, `expressions` and `calls`; what
library objects do (PySpark's in `pyspark_api`, the builtins' in `python_api`) is looked up in
`registry`, which `streamlint.extract` fills before it runs the interpreter.
"""

from __future__ import annotations

import io
import re
import tokenize
from types import SimpleNamespace
from typing import Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.budget import UNBOUNDED
from streamlint.extract.calls import MAX_DEPTH, Calls
from streamlint.extract.coverage import escaped
from streamlint.extract.expressions import Expressions
from streamlint.extract.in_place import InPlace
from streamlint.extract.positions import ModuleIndex, code_of, first_name
from streamlint.extract.reach import Reach, identity_of, loader_finder, reach_of
from streamlint.extract.statements import Statements
from streamlint.extract.values import (
    Class,
    Effects,
    Env,
    Function,
    Instance,
    ModuleContext,
    PathValue,
)
from streamlint.model import Loc, Unknown

__all__ = ["MAX_DEPTH", "Interpreter"]


class Interpreter(Statements, Expressions, Calls, InPlace):
    """The state of one run over a file; its statements, expressions and calls are the mixins'.
    """

    def __init__(self, module: cst.Module, path: str, index: ModuleIndex,
                 loader: Any = None) -> None:
        self.module = module
        self.path = path
        self.index = index
        self.effects = Effects()
        self.depth = 0
        self.executed: set[int] = set()
        self.globals = Env()
        self.frames: list[Function] = []
        # The call of each running function, outermost first: the calls a query is started
        # through (`Sink.called_from`).
        self.sites: list[cst.CSTNode] = []
        self.yields: list[list[Any]] = []  # what each running generator function has yielded
        # Per running function: what its guard clauses returned early (`if not x: return`),
        # each with its condition and place; the code after them runs as uncertain.
        self.guards: list[list[tuple[Any, str, Any]]] = []
        # Per function with a guard clause, outermost first: where its writes begin in
        # effects.heap_log.
        self.guard_writes: list[int] = []
        self.heap_watch = 0  # branches running that log heap writes (extract/heap.py)
        self.alternatives_depth = 0  # calls of functions chosen at run time, nested
        self.module_codes: dict[int, str] = {}  # per module: a fingerprint of its code
        self.generators: dict[int, bool] = {}  # per function node: whether it is a generator
        # What the last user function called changed in place among its arguments, by the
        # argument's position or keyword (extract/calls.py gives it back to the caller).
        self.changed_args: dict[int | str, Any] = {}
        # What the registered libraries keep for one run (PySpark's temp views, a notebook's
        # widgets, a pipeline's datasets): set by their "start" hooks, read only by them.
        self.ext = SimpleNamespace()
        # What `load_dotenv()` read from a .env file: the environment's defaults (extract/
        # config_files.py).
        self.dotenv: dict[str, str] = {}
        # Other files whose code runs in this one (a notebook's %run targets), for locations.
        self.files: list[tuple[str, ModuleIndex]] = []
        self.globals.names["__name__"] = "__main__"
        if loader is not None:
            # The module's path in its repository: where its configuration files are.
            self.globals.names["__file__"] = PathValue(loader.project.job, anchored=True)
        # The module whose code runs now (the job, or a module it imported: `modules.py`);
        # `loader` follows imports of the repository's own modules (None: none are followed).
        self.main = ModuleContext(path, "__main__", module, index, self.globals)
        self.context = self.main
        self.contexts: list[ModuleContext] = [self.main]
        self.loader = loader
        self.codes: dict[int, str] = {}
        self.budget: Any = UNBOUNDED  # extract_text gives it a Budget (extract/budget.py)
        registry.fire("start", self)

    # -- positions and text -------------------------------------------------------------

    def loc(self, node: cst.CSTNode) -> Loc:
        if isinstance(node, cst.Call):
            func = node.func
            node = func.attr if isinstance(func, cst.Attribute) else func
        elif isinstance(node, cst.Attribute):
            node = node.attr
        name = first_name(node)
        if name is None:
            return Loc(self.context.path, 0, 0)
        key = id(name)
        start = self.context.index.starts.get(key)
        if start is not None:
            return Loc(self.context.path, *start)
        # Code of another module running here (a lambda it made, an inherited method), or of
        # a notebook a `%run` read (`self.files`).
        for context in self.contexts:
            start = context.index.starts.get(key)
            if start is not None:
                return Loc(context.path, *start)
        for path, index in self.files:
            if key in index.starts:
                return Loc(path, *index.starts[key])
        return Loc(self.context.path, 0, 0)

    def reach(self, node: cst.CSTNode) -> str:
        """A fingerprint of the code that can reach `node` (extract/reach.py): the same in
        two versions when no edit can have changed what it does; "" when not known."""
        found = self._holder(node)
        if found is None:
            return ""
        return identity_of(found[0], node, loader_finder(self.loader), found[1])

    def reach_of(self, node: cst.CSTNode, alone: bool = False) -> Reach | None:
        """What can reach `node` in the module that holds it (extract/reach.py), relative
        imports read from that module's folder; None when no module read holds it."""
        found = self._holder(node)
        if found is None:
            return None
        return reach_of(found[0], node, loader_finder(self.loader), found[1], alone)

    def _holder(self, node: cst.CSTNode) -> tuple[ModuleIndex, str] | None:
        """The index of the module holding `node` and its path in the repository."""
        contexts = [self.context, *self.contexts]
        job = self.loader.project.job if self.loader is not None else self.context.path
        indexes = [*((c.index, c.relpath or job) for c in contexts),
                   *((index, path) for path, index in self.files)]
        name = first_name(node)
        return next(((i, path) for i, path in indexes if id(node) in i.tops
                     or (name is not None and id(name) in i.starts)), None)

    def code(self, node: cst.CSTNode) -> str:
        # Memoized: a helper called N times asks for the same node's code N times, and
        # libcst's code generation is linear in the node's size (extract/budget.py).
        # Without the node's outer brackets and the comments written inside it: wrapping a
        # long line in brackets or commenting it is no edit of what it computes.
        text = self.codes.get(id(node))
        if text is None:
            lpar = getattr(node, "lpar", None)
            code = code_of(node.with_changes(lpar=[], rpar=[]) if lpar else node, self.module)
            if "\n" in code:  # wrapped over lines: the layout inside brackets is no edit
                code = _one_line(code)
            text = self.codes[id(node)] = " ".join(
                (_without_comments(code) if "#" in code else code).split())
        return text

    def condition(self, node: cst.BaseExpression) -> str:
        """A run-time condition's code, as choices and notes name it (`code`: without its
        outer brackets and the comments written inside it, so neither is a change)."""
        return self.code(node)

    # -- running a file -----------------------------------------------------------------

    def run_module(self) -> None:
        self.run_block(self.module.body, self.globals)
        registry.fire("module_end", self)  # a pipeline's tables and flows run now
        self.run_entry_points()

    def run_entry_points(self) -> None:
        """Run functions and methods nothing in the file calls (`main`, `Job.run`, ...).

        Helpers that are called get their real arguments when their caller runs; running
        them again alone would invent queries with unknown arguments.
        """
        referenced = self.index.references
        for stmt in self.module.body:
            if isinstance(stmt, cst.FunctionDef) and referenced.get(stmt.name.value, 0) <= 1:
                self.run_entry(stmt, self.globals, None)
            elif isinstance(stmt, cst.ClassDef):
                cls = self.globals.names.get(stmt.name.value)
                if not isinstance(cls, Class):
                    continue
                for name, method in cls.methods.items():
                    if name.startswith("__") or referenced.get(name, 0) > 1:
                        continue
                    self.run_entry(method, cls.env, self.entry_instance(cls, stmt))
        # A function handed to code we cannot see (a scheduler, a framework) still runs; so
        # does every function of a file whose streaming is done by the modules it imports
        # (`self._loader.save(df)`, with `save` a repository module's writer), and a
        # streaming method whose name other objects' calls share (a dataset's `load` beside
        # `reader.load(path)`): what the run above did not call runs alone, after every
        # caller had its turn, so no helper is run with unknown arguments first.
        via_modules = self.loader is not None and self.loader.streaming
        for node in self.index.functions:
            if id(node) not in self.executed and (via_modules or registry.starts_work(
                    self.code(node))):
                owner = None
                cls = self._owning_class(node)
                if cls is not None:
                    owner = self.entry_instance(cls, cls.node)
                self.run_entry(node, cls.env if cls else self.globals, owner)

    def _owning_class(self, node: cst.FunctionDef) -> Class | None:
        for value in self.globals.names.values():
            if isinstance(value, Class) and any(m is node for m in value.methods.values()):
                return value
        return None

    def run_entry(self, node: cst.FunctionDef, env: Env, owner: Instance | None) -> None:
        if id(node) in self.executed:
            return
        params = [p.name.value for p in node.params.params]
        args: list[Any] = [Unknown(p) for p in params[1 if owner is not None else 0 :]]
        # Code that calls an entry point runs apart from the job's own path: a failure on
        # either is not the other's.
        failed, self.effects.failed = self.effects.failed, None
        entry, self.effects.entry = self.effects.entry, node.name.value
        result = self.call_function(Function(node, env, owner), args, {}, node)
        self.effects.failed, self.effects.entry = failed, entry
        # Returned to a caller this file does not show (a framework, another module): what
        # it hands over is known by what the entry point does (the code that can reach it,
        # not its name: a framework's hook renamed is the same code), as well as by the
        # values the run found (unknown arguments hide what a changed helper does to them).
        escaped(self, (result,), f"the caller of {node.name.value}()", "the caller",
                self.reach(node))


def _without_comments(code: str) -> str:
    """An expression's code with its comments cut out (`tokenize` knows which `#` is one)."""
    source = "(" + code + ")"
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    lines = source.splitlines(keepends=True)
    for token in reversed(tokens):
        if token.type == tokenize.COMMENT:
            row, start = token.start
            lines[row - 1] = lines[row - 1][:start] + lines[row - 1][token.end[1]:]
    return "".join(lines)[1:-1]


_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")
# One-line string literals (a prefix, then single or double quotes), and the whitespace after an
# opening bracket or before a closing one.
_STRING = re.compile(r"""(?<![\w])[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
_AFTER_OPENING, _BEFORE_CLOSING = re.compile(r"([(\[{])\s+"), re.compile(r"\s+([)\]}])")


def _one_line_plain(code: str) -> str | None:
    """`_one_line` without the tokenizer, for code whose strings are one-line literals and
    that has no comment or line continuation (two thirds of the history corpus's multi-line
    expressions, each given the same text as by the tokenizer; five times faster); None for
    any other code."""
    strings: list[str] = []

    def keep(match: re.Match[str]) -> str:
        strings.append(match.group(0))
        return f"\x00{len(strings) - 1}\x00"

    masked = _STRING.sub(keep, code)
    if any(c in masked for c in "'\"#\\"):
        return None
    text = _BEFORE_CLOSING.sub(r"\1", _AFTER_OPENING.sub(r"\1", " ".join(masked.split())))
    return _PLACED.sub(lambda match: strings[int(match.group(1))], text)


_PLACED = re.compile("\x00(\\d+)\x00")


def _one_line(code: str) -> str:
    """An expression's code on one line, without comments: tokens apart where they were apart,
    but none after an opening bracket or before a closing one, so `{\n    k: v\n}` and
    `{k: v}` (a formatter wrapping a long line) read the same. Strings are kept as written."""
    fast = _one_line_plain(code)
    if fast is not None:
        return fast
    source = "(" + code + ")"
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    out: list[str] = []
    end = (1, 0)
    for token in tokens:
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                          tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        apart = token.start != end
        if out and apart and out[-1] not in _OPENING and token.string not in _CLOSING:
            out.append(" ")
        out.append(token.string)
        end = token.end
    return "".join(out)[1:-1]
