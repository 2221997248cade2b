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

import libcst as cst

from streamlint.extract.code_text import code_text
from streamlint.extract.positions import contains
from streamlint.extract.spark_values import Grouped, Plan, Writer
from streamlint.extract.symbolic import digest
from streamlint.extract.writer_uses import never_started
from streamlint.model import Loc, Query, Source, Unseen, is_known, show

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

SNIPPET = 80


def unseen(interp: Interpreter, queries: tuple[Query, ...]) -> tuple[Unseen, ...]:
    effects = interp.effects
    consumed = {s.loc for q in queries for s in q.sources} | effects.consumed
    items: dict[tuple[str, object], Unseen] = {}
    for source in effects.streams:
        if source.loc not in consumed and source.loc in effects.escaped:
            into, fingerprint = effects.escaped[source.loc]
            items.setdefault(("no-sink", source.loc), Unseen(
                "no-sink", f"the streaming DataFrame read here ({_describe(source)}) goes into "
                f"`{_snippet(into)}`, which streamlint cannot follow, and reaches no sink "
                "streamlint recognises", source.loc, fingerprint))
    started = {w.loc for w in effects.queries} | effects.alternatives
    for loc, code in effects.writers.items():
        if loc in started or ("no-sink", loc) in items:
            continue
        if loc in effects.escaped_writers:  # handed over, or returned to a caller unseen
            into, fingerprint = effects.escaped_writers[loc]
            items[("no-writer", loc)] = Unseen(
                "no-sink", f"`{_snippet(code)}` builds a stream writer that goes into "
                f"`{_snippet(into)}`, which streamlint cannot follow", loc, fingerprint)
        elif _dropped(interp, loc):
            # Built and dropped (a lab's `# TODO: writeStream ...`): a writer without
            # start()/toTable() starts no query.
            items[("no-writer", loc)] = Unseen(
                "never-started", f"`{_snippet(code)}` builds a stream writer that is never "
                "started (no start, toTable or table call, and no other code can start it)",
                loc, _reach_at(interp, loc))
        else:
            items[("no-writer", loc)] = Unseen(
                "no-sink", f"`{_snippet(code)}` builds a stream writer that is never started "
                "by a call streamlint recognises (start, toTable, table)", loc,
                _reach_at(interp, loc))
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
            "(nothing it read calls it with known values)", loc, interp.reach(node))
    if not items and not queries:
        silent = _nothing_found(interp)
        if silent is not None:
            items[("no-query", silent.loc)] = silent
    return tuple(items.values())


def _dropped(interp: Interpreter, loc: Loc) -> bool:
    """Whether the `.writeStream` at `loc` is written in a top-level statement that only
    evaluates it (`df.writeStream.format("x")`) or binds it to a name that the file uses, if
    at all, only as the query it would start (`query.status` under a lab's `# TODO:
    writeStream ...`: extract/writer_uses.py): then no code can start it. A writer put in a
    list, handed on, rebound or configured further may be started where streamlint did not
    follow (UN03)."""
    node = next((n for n in interp.index.streaming if interp.loc(n) == loc), None)
    top = None if node is None else interp.index.tops.get(id(node))
    if top is None:
        top = next((s for s in interp.index.body if contains(s, node)), None)
    if not isinstance(top, cst.SimpleStatementLine) or len(top.body) != 1:
        return False
    small = top.body[0]
    if isinstance(small, cst.Expr):
        return True
    if isinstance(small, cst.Assign) and len(small.targets) == 1 \
            and isinstance(small.targets[0].target, cst.Name):
        texts = [interp.module.code, *(code_text(cst.Module(body=list(index.body)))
                                       for _, index in interp.files)]
        return never_started(small.targets[0].target.value, texts)
    return False



def _reach_at(interp: Interpreter, loc: Loc) -> str:
    """The fingerprint of what can reach the `.writeStream` written at `loc`; "" if none."""
    streaming = [*interp.index.streaming,
                 *(node for _, index in interp.files for node in index.streaming)]
    node = next((n for n in streaming if interp.loc(n) == loc), None)
    return interp.reach(node) if node is not None else ""


def _nothing_found(interp: Interpreter) -> Unseen | None:
    """Code that speaks of streaming (a helper's `handle.read_stream()`, a module's `dlt`)
    in which the run found nothing at all: no query, no stream read, no writer, no pipeline
    table. Whatever it does, streamlint did not see it, so it cannot be called compatible.
    (A file whose streams all end in `display()` found a stream; a pipeline of materialized
    views found its tables.)"""
    effects = interp.effects
    if effects.streams or effects.writers or effects.consumed or (
            interp.ext.pipeline is not None and interp.ext.pipeline.definitions):
        return None
    mentions = [interp.index.mention, *(index.mention for _, index in interp.files)]
    for node in mentions:
        if node is not None:
            loc = interp.loc(node)
            return Unseen("no-query", f"`{node.value}` marks this as streaming code, but "
                          "streamlint found no query it starts, no stream it reads and no "
                          "pipeline table in it (its streams may be built by code it cannot "
                          "follow, or returned to callers elsewhere)", loc)
    return None


def _describe(source: Source) -> str:
    parts = [str(source.format) if isinstance(source.format, str) else "a source"]
    for key, value in source.identity:
        parts.append(f"{key}={show(value) if is_known(value) else '?'}")
    return " ".join(parts)


def _snippet(code: str) -> str:
    return code if len(code) <= SNIPPET else code[: SNIPPET - 3] + "..."


def escaped(interp: Interpreter, values: tuple[Any, ...], into: str, key: str | None = None,
            reach: str | None = None) -> None:
    """Note the streaming sources of DataFrames handed to code streamlint cannot follow, with
    a fingerprint of everything that code was handed (the DataFrames' shapes, the other
    arguments' values): handing the same values to the same code again changes nothing.
    `reach`, where given, is the fingerprint of the code that built them (an entry point run
    with unknown arguments): part of the fingerprint, and "" (not known) makes it "" too."""
    sources = _streaming_sources(values, 0)
    writers = [v for v in values if isinstance(v, Writer)]
    if not sources and not writers:
        return
    # A writer's shape leaves out what a run-time choice between writers may differ in (its
    # name, partitions, batch function): handed to unfollowed code, those count too.
    settings = [(w.query_name, w.partition_by, w.foreach and digest(w.foreach[1]))
                for w in writers]
    # `key`, where given, stands for `into` in the fingerprint (a caller named by a function
    # whose name is no part of what it is handed).
    fingerprint = digest((into if key is None else key, values, settings))
    if reach is not None:
        fingerprint = digest((fingerprint, reach)) if reach else ""
    for source in sources:
        interp.effects.escaped.setdefault(source.loc, (into, fingerprint))
    for writer in writers:
        interp.effects.escaped_writers.setdefault(writer.loc, (into, fingerprint))


def _streaming_sources(value: Any, depth: int) -> list[Source]:
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
