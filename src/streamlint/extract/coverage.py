"""What a run of the interpreter left unread, as `Unseen` records: never a silent "compatible".

Three checks, each cheap because the run already recorded what it met:

- a streaming source whose DataFrame reached no query but went into code streamlint cannot
  follow (a writer from a package outside the repository, a framework that calls the
  function returning it). A stream that goes nowhere at all (read, then never used) starts
  no query and is left alone;
- a stream writer (`.writeStream`) built but never started with a sink streamlint knows;
- a `.readStream` / `.writeStream` written in the file that the run never reached (code in a
  function nothing calls with a known value, a lambda handed to a framework, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamlint.model import Query, Source, Unseen, is_known, show

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

SNIPPET = 80


def unseen(interp: Interpreter, queries: tuple[Query, ...]) -> tuple[Unseen, ...]:
    effects = interp.effects
    consumed = {s.loc for q in queries for s in q.sources} | effects.consumed
    items: dict[tuple[str, object], Unseen] = {}
    for source in effects.streams:
        if source.loc not in consumed and source.loc in effects.escaped:
            items.setdefault(("no-sink", source.loc), Unseen(
                "no-sink", f"the streaming DataFrame read here ({_describe(source)}) goes into "
                f"`{_snippet(effects.escaped[source.loc])}`, which streamlint cannot follow, "
                "and reaches no sink streamlint recognises", source.loc))
    started = {w.loc for w in effects.queries}
    for loc, code in effects.writers.items():
        if loc not in started and ("no-sink", loc) not in items:
            items[("no-writer", loc)] = Unseen(
                "no-sink", f"`{_snippet(code)}` builds a stream writer that is never started "
                "by a call streamlint recognises (start, toTable, table)", loc)
    # The job's own code, and the code of the files it runs (a notebook's %run targets).
    streaming = [*interp.index.streaming,
                 *(node for _, index in interp.files for node in index.streaming)]
    for node in streaming:
        if id(node) in effects.reached:
            continue
        loc = interp.loc(node)
        if any(key[1] == loc for key in items):
            continue
        items[("not-run", loc)] = Unseen(
            "not-run", f"`{_snippet(interp.code(node))}` is in code streamlint did not follow "
            "(nothing it read calls it with known values)", loc)
    return tuple(items.values())


def _describe(source: Source) -> str:
    parts = [str(source.format) if isinstance(source.format, str) else "a source"]
    for key, value in source.identity:
        parts.append(f"{key}={show(value) if is_known(value) else '?'}")
    return " ".join(parts)


def _snippet(code: str) -> str:
    return code if len(code) <= SNIPPET else code[: SNIPPET - 3] + "..."


def escaped(interp: Interpreter, values: tuple[Any, ...], into: str) -> None:
    """Note the streaming sources of DataFrames handed to code streamlint cannot follow."""
    for source in _streaming_sources(values, 0):
        interp.effects.escaped.setdefault(source.loc, into)


def _streaming_sources(value: Any, depth: int) -> list[Source]:
    from streamlint.extract.values import Grouped, Plan, Writer

    if depth > 3:
        return []
    if isinstance(value, Plan):
        return [s for s in value.sources if s.streaming]
    if isinstance(value, Grouped | Writer):
        return [s for s in value.plan.sources if s.streaming]
    if isinstance(value, tuple | list):
        return [s for item in value for s in _streaming_sources(item, depth + 1)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _streaming_sources(item, depth + 1)]
    return []
