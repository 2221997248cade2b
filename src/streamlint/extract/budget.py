"""Bounds on one file's analysis: every input gets an answer, or an exit-2 refusal saying why.

A pre-commit hook or a CI check must never hang. The costs that once ran for minutes are cut
here, each by a setting (an environment variable; docs/contributing/hardening.md, "Bounds"):

* `STREAMLINT_MAX_BYTES` (default 300,000): a larger file is refused before parsing; libcst
  holds about 500 bytes of Python objects per byte of source (a 1.5 MB file took 780 MB and 25 s to
  parse on a loaded machine; the largest job in our corpora has 31 KB).
* `STREAMLINT_MAX_EXPRESSION_DEPTH` (default 200): libcst's parser takes time that grows
  faster than the square of a chain's length (800 chained calls took 44 s), so the deepest
  expression is measured first with Python's own parser, which is linear.
* `STREAMLINT_MAX_STEPS` (default 200,000): the interpreter counts every statement and
  expression it evaluates; a file that needs more (a helper calling itself, helpers fanning
  out into millions of calls) is refused. Counted, not timed: the same answer on a loaded
  machine as on a quiet one.
* `STREAMLINT_MAX_MEMORY_MB` (default 400): what the analysis of one file may add to the
  process's resident memory, checked every few thousand steps (and by the watchdog).
* `STREAMLINT_MAX_SECONDS` (default 30): the watchdog's clock (`watchdog`), the last resort
  when a single step runs away; on a quiet machine no input in our fuzzing came near it.

A value the interpreter would build past `MAX_VALUE` (a string doubled sixty times, a power of
a power) is not built: it becomes an `Unknown`, as any value streamlint cannot know.
"""

from __future__ import annotations

import ast
import os
from typing import Any

from streamlint.extract.text import python_tree
from streamlint.model.errors import InputError
from streamlint.model.records import record

MAX_VALUE = 100_000  # characters of a string, items of a tuple, digits of an int
_CHECK_MEMORY_EVERY = 4096


@record
class Limits:
    max_bytes: int = 300_000
    max_expression_depth: int = 200
    max_steps: int = 200_000
    max_memory_mb: int = 400
    max_seconds: int = 30

    @classmethod
    def from_env(cls) -> Limits:
        values = {}
        for field, variable in _VARIABLES.items():
            text = os.environ.get(variable)
            if text is None or text == "":
                continue
            if not text.isdigit() or int(text) <= 0:
                raise InputError(variable, 1, 0, f"{variable}={text!r}: give a positive whole "
                                 "number")
            values[field] = int(text)
        return cls(**values)


_VARIABLES = {"max_bytes": "STREAMLINT_MAX_BYTES",
              "max_expression_depth": "STREAMLINT_MAX_EXPRESSION_DEPTH",
              "max_steps": "STREAMLINT_MAX_STEPS", "max_memory_mb": "STREAMLINT_MAX_MEMORY_MB",
              "max_seconds": "STREAMLINT_MAX_SECONDS"}


def refuse(path: str, line: int, column: int, what: str, setting: str) -> InputError:
    return InputError(path, line, column, f"{what}: too large or too deep to analyse "
                      f"statically; simplify this code, or raise {setting} "
                      "(docs/contributing/hardening.md, \"Bounds\")")


def check_size(data: bytes | str, path: str, limits: Limits) -> None:
    if len(data) > limits.max_bytes:
        raise refuse(path, 1, 0, f"the file has {len(data):,} bytes, more than "
                     f"{limits.max_bytes:,}", "STREAMLINT_MAX_BYTES")


def check_depth(text: str, path: str, limits: Limits) -> None:
    """Refuse an expression nested deeper than the limit, measured with Python's parser.

    Nothing runs: `ast.parse` only parses. A file Python cannot parse is left to the caller,
    which reports the syntax error where libcst or Python places it.
    """
    tree = python_tree(text)
    if isinstance(tree, RecursionError | MemoryError):  # Python's parser gave up on its depth
        raise refuse(path, 1, 0, "an expression nested deeper than Python's parser reads",
                     "STREAMLINT_MAX_EXPRESSION_DEPTH")
    if isinstance(tree, BaseException):
        return
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            depth += 1
            if depth > limits.max_expression_depth:
                raise refuse(path, getattr(node, "lineno", 1),
                             getattr(node, "col_offset", 0),
                             f"an expression nested more than {limits.max_expression_depth} "
                             "deep (a chain of that many calls or operators)",
                             "STREAMLINT_MAX_EXPRESSION_DEPTH")
            # Each level of nesting takes a character at least: an expression on one line
            # narrower than the depth left cannot reach the limit (most of a file).
            if node.lineno == node.end_lineno and (
                    (node.end_col_offset or 0) - node.col_offset
                    <= limits.max_expression_depth - depth):
                continue
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))


def rss_mb() -> float | None:
    try:
        with open("/proc/self/statm", "rb") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 1_048_576


class Budget:
    """Steps left for one file's interpretation, and the memory it started with."""

    def __init__(self, path: str, limits: Limits | None = None) -> None:
        self.path = path
        self.limits = limits or Limits.from_env()
        self.left = self.limits.max_steps
        self.start_mb = rss_mb()

    def step(self, interp: Any, node: Any) -> None:
        self.left -= 1
        if self.left % _CHECK_MEMORY_EVERY == 0:
            self._check(interp, node)

    def _check(self, interp: Any, node: Any) -> None:
        loc = interp.loc(node)
        if self.left <= 0:
            raise refuse(self.path, loc.line or 1, loc.column,
                         f"following this code took more than {self.limits.max_steps:,} "
                         "steps (a function calling itself, or helpers calling each other "
                         "very many times)", "STREAMLINT_MAX_STEPS")
        now = rss_mb()
        if now is not None and self.start_mb is not None and (
                now - self.start_mb > self.limits.max_memory_mb):
            raise refuse(self.path, loc.line or 1, loc.column,
                         f"following this code took more than {self.limits.max_memory_mb} "
                         "MB of memory", "STREAMLINT_MAX_MEMORY_MB")


class _Unbounded:
    """The budget of an interpreter made without one (tests building it by hand)."""

    def step(self, interp: Any, node: Any) -> None:
        return None


UNBOUNDED = _Unbounded()


def too_big(value: Any) -> bool:
    """A value the interpreter must not build further (it becomes an Unknown instead)."""
    if isinstance(value, str | tuple | bytes):
        return len(value) > MAX_VALUE
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() > MAX_VALUE
    text = getattr(value, "text", None)
    return isinstance(text, str) and len(text) > MAX_VALUE


def power_too_big(left: Any, right: Any) -> bool:
    """`a ** b` whose result would have more than MAX_VALUE bits: never computed."""
    if not (isinstance(left, int | float) and isinstance(right, int | float)):
        return False
    if abs(left) <= 1 or right <= 1:
        return False
    return right * max(abs(left), 2).bit_length() > MAX_VALUE if isinstance(left, int) \
        else right > 1024
