"""One cheap pass over a module: where each name starts, which names are used, which defs exist.

libcst's PositionProvider records a range for every node and cost about 20 ms on a 200-line
file here; plain code generation costs under 4 ms. Locations are only needed for names (the
method names of calls, like a compiler's caret), so this pass records just those, and collects
what the interpreter needs to find entry points on the way.
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_right
from itertools import accumulate

import libcst as cst
from libcst._nodes.internal import CodegenState

from streamlint.model.records import factory, record

STREAMING_ATTRIBUTES = frozenset({"readStream", "writeStream"})
# Names that say a file is about streaming though no query may be found in it: a helper's
# `handle.read_stream()`, a pipeline's `dlt` / `dp` module.
MENTIONS = STREAMING_ATTRIBUTES | {"read_stream", "dlt", "dp", "pipelines"}


@record(frozen=False)
class ModuleIndex:
    starts: dict[int, tuple[int, int]] = factory(dict)  # id(Name) -> line, column
    references: dict[str, int] = factory(dict)  # how often each name is written
    functions: list[cst.FunctionDef] = factory(list)
    # Every `.readStream` / `.writeStream` in the file: what the run must reach (coverage).
    streaming: list[cst.Attribute] = factory(list)
    mention: cst.Name | None = None  # the first name of MENTIONS in the code
    yields: int = 0  # `yield` expressions in the file: none, and no function is a generator
    # The module's top-level statements, and for each `.readStream` / `.writeStream` (by id)
    # the one holding it: what code can reach it when the run did not (extract/reach.py).
    body: tuple[cst.BaseStatement, ...] = ()
    tops: dict[int, cst.BaseStatement] = factory(dict)
    # The first name of each top-level statement (by id), found once (extract/reach.py):
    # libcst builds a node's children anew on every access.
    first_names: dict[int, cst.Name | None] = factory(dict)


class _NoOp:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_OP = _NoOp()


class _PlainState(CodegenState):
    """libcst's code generation without its per-node position bookkeeping (a context
    manager entered for every expression and statement)."""

    def record_syntactic_position(  # type: ignore[override]
            self, node: cst.CSTNode, **where: object) -> _NoOp:
        return _NO_OP


_EMPTY = cst.Module(body=[])


def code_of(node: cst.CSTNode, module: cst.Module = _EMPTY) -> str:
    """`module.code_for_node(node)`, the same text, generated faster."""
    state = _PlainState(default_indent=module.default_indent,
                        default_newline=module.default_newline)
    node._codegen(state)
    return "".join(state.tokens)


class _IndexingState(CodegenState):
    """Code generation that notes, for each name, how many tokens came before it.

    Turning token counts into lines and columns afterwards (with C-level joins and searches)
    is cheaper than tracking the position on every one of the file's tokens.
    """

    def __init__(self, module: cst.Module, index: ModuleIndex) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        self.index = index
        self.names: list[tuple[int, int]] = []  # id(Name), tokens before it
        self.top_ids = {id(statement) for statement in module.body}
        self.top: cst.BaseStatement | None = None

    def record_syntactic_position(  # type: ignore[override]
            self, node: cst.CSTNode, **where: object) -> _NoOp:
        # libcst's default is a generator context manager that does nothing; it is entered
        # for every expression and statement, and `contextlib`'s machinery was a third of
        # this pass's time.
        return _NO_OP

    def before_codegen(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if id(node) in self.top_ids:
            self.top = node  # type: ignore[assignment]
        if kind is cst.Name:
            self.names.append((id(node), len(self.tokens)))
            name = node.value  # type: ignore[attr-defined]
            self.index.references[name] = self.index.references.get(name, 0) + 1
            if name in MENTIONS and self.index.mention is None:
                self.index.mention = node  # type: ignore[assignment]
        elif kind is cst.Attribute:
            # `self.run()` references the method `run`: count it as a use, beyond its def.
            name = node.attr.value  # type: ignore[attr-defined]
            self.index.references[name] = self.index.references.get(name, 0) + 2
            if name in STREAMING_ATTRIBUTES:
                self.index.streaming.append(node)  # type: ignore[arg-type]
                if self.top is not None:
                    self.index.tops[id(node)] = self.top
        elif kind is cst.FunctionDef:
            self.index.functions.append(node)  # type: ignore[arg-type]
        elif kind is cst.Yield:
            self.index.yields += 1


def index_module(module: cst.Module) -> ModuleIndex:
    index = ModuleIndex(body=tuple(module.body))
    state = _IndexingState(module, index)
    module._codegen(state)
    offsets = list(accumulate(map(len, state.tokens), initial=0))
    text = "".join(state.tokens)
    line_starts = [0] + [match.end() for match in _NEWLINE.finditer(text)]
    for node_id, tokens_before in state.names:
        offset = offsets[tokens_before]
        line = bisect_right(line_starts, offset)
        index.starts[node_id] = (line, offset - line_starts[line - 1])
    return index


_NEWLINE = re.compile(r"\n")


def first_name(node: cst.CSTNode) -> cst.Name | None:
    """The first name written inside a statement or expression (only names have positions).

    Depth-first in source order: a statement's first child is often whitespace (`if` is
    followed by a space before its test), so taking the first child alone finds nothing.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            return current
        children = [c for c in children_of(current) if not isinstance(c, cst.Decorator)]
        stack.extend(reversed(children))
    return None



# Node types whose fields are not declared in source order: their written parts first, in
# the order they are written (the rest, whitespace and punctuation, after).
_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "asynchronous", "name", "type_parameters", "params",
                      "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Arg: ("star", "keyword", "value"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
}
_FIELDS: dict[type, tuple[str, ...]] = {}


def children_of(node: cst.CSTNode) -> list[cst.CSTNode]:
    """A node's children without libcst's `children`, which rebuilds the node to list them
    (three times slower): the same nodes, the written parts in source order (whitespace and
    punctuation may come in another order)."""
    names = _FIELDS.get(type(node))
    if names is None:
        declared = tuple(field.name for field in dataclasses.fields(node))
        first = tuple(n for n in _SOURCE_ORDER.get(type(node), ()) if n in declared)
        names = _FIELDS[type(node)] = first + tuple(n for n in declared if n not in first)
    found: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        if is_node(value):
            found.append(value)
        elif isinstance(value, list | tuple):
            found.extend(item for item in value if is_node(item))
    return found


# Whether each type met is a libcst node. `isinstance(x, cst.CSTNode)` goes through ABCMeta:
# the first time a type that is no node (str, bool, None, a tuple, MaybeSentinel) is tested,
# it asks each of libcst's hundreds of node classes in turn, about 0.4 ms a type and 2 ms of
# every `diff`. libcst registers no virtual subclass, so the class's MRO gives the same answer.
_IS_NODE: dict[type, bool] = {}


def is_node(value: object) -> bool:
    """`isinstance(value, cst.CSTNode)`, without the ABC machinery."""
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = cst.CSTNode in kind.__mro__
    return known


def contains(root: cst.CSTNode, target: cst.CSTNode | None) -> bool:
    """Whether `target` is `root` or one of the nodes under it (compared by identity)."""
    stack = [root]
    while stack:
        current = stack.pop()
        if current is target:
            return True
        stack.extend(children_of(current))
    return False
