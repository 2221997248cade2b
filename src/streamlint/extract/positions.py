"""One cheap pass over a module: where each name starts, which names are used, which defs exist,
and the text of every node.

libcst's PositionProvider records a range for every node and cost about 20 ms on a 200-line
file here; plain code generation costs under 4 ms. Locations are only needed for names (the
method names of calls, like a compiler's caret), so this pass records just those, and collects
what the interpreter needs to find entry points on the way. It also notes where each node's
tokens begin and end, so that the interpreter's many quotes of code (an unknown value's text,
a function searched for `writeStream`) slice this one generated text instead of generating
each node's code again.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

import libcst as cst
from libcst._nodes.internal import CodegenState

from streamlint.records import factory, record


@record(frozen=False)
class ModuleIndex:
    starts: dict[int, tuple[int, int]] = factory(dict)  # id(Name) -> line, column
    references: dict[str, int] = factory(dict)  # how often each name is written
    functions: list[cst.FunctionDef] = factory(list)
    text: str = ""  # the module's code, as generated
    offsets: list[int] = factory(list)  # tokens before -> characters before
    spans: dict[int, tuple[int, int]] = factory(dict)  # id(node) -> first, end token

    def code(self, node: cst.CSTNode) -> str | None:
        """A node's code as this module wrote it (None for a node from elsewhere)."""
        span = self.spans.get(id(node))
        if span is None:
            return None
        return self.text[self.offsets[span[0]]:self.offsets[span[1]]]


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
        self.firsts: dict[int, int] = {}

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.firsts[id(node)] = len(self.tokens)
        kind = type(node)
        if kind is cst.Name:
            self.names.append((id(node), len(self.tokens)))
            name = node.value  # type: ignore[attr-defined]
            self.index.references[name] = self.index.references.get(name, 0) + 1
        elif kind is cst.Attribute:
            # `self.run()` references the method `run`: count it as a use, beyond its def.
            name = node.attr.value  # type: ignore[attr-defined]
            self.index.references[name] = self.index.references.get(name, 0) + 2
        elif kind is cst.FunctionDef:
            self.index.functions.append(node)  # type: ignore[arg-type]

    def after_codegen(self, node: cst.CSTNode) -> None:
        # An `elif` is written by its parent `if`; on its own it would read `if`. Every other
        # node's text is its own code (up to indentation, which quoting collapses).
        if type(node) is not cst.If:
            key = id(node)
            self.index.spans[key] = (self.firsts[key], len(self.tokens))


def index_module(module: cst.Module) -> ModuleIndex:
    index = ModuleIndex()
    state = _IndexingState(module, index)
    module._codegen(state)
    offsets = list(accumulate(map(len, state.tokens), initial=0))
    text = "".join(state.tokens)
    index.text, index.offsets = text, offsets
    line_starts = [0] + [match.end() for match in _NEWLINE.finditer(text)]
    for node_id, tokens_before in state.names:
        offset = offsets[tokens_before]
        line = bisect_right(line_starts, offset)
        index.starts[node_id] = (line, offset - line_starts[line - 1])
    return index


_NEWLINE = re.compile(r"\n")
