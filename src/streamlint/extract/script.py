"""A Python job read into query records: parsed with libcst, followed by the symbolic
interpreter within its budget, each query it starts turned into plain data.

This is the front end's heavy half (libcst and the interpreter, about 0.3 s to import):
`streamlint.extract.extract_text` imports it only for a file that may hold a query.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate

import libcst as cst

# The libraries' knowledge registers itself (`extract.registry`) when imported: imported
# here, before the interpreter looks it up.
import streamlint.extract.arguments
import streamlint.extract.config_files
import streamlint.extract.platform
import streamlint.extract.pyspark_api
import streamlint.extract.python_api  # noqa: F401
from streamlint.extract import pipelines
from streamlint.extract.budget import Budget, Limits, check_depth, check_size
from streamlint.extract.columns import last_wins, option_value, plain
from streamlint.extract.coverage import unseen
from streamlint.extract.inputs import inputs_of
from streamlint.extract.interpreter import Interpreter
from streamlint.extract.modules import Loader
from streamlint.extract.positions import index_module
from streamlint.extract.project import Project
from streamlint.extract.pyspark_api import foreach_code
from streamlint.extract.removals import generation, sequential
from streamlint.extract.spark_values import Writer
from streamlint.extract.text import check_syntax, python_syntax_error
from streamlint.extract.volatile import volatile_call
from streamlint.extract.watchdog import watchdog
from streamlint.model import JobFile, Loc, Query, Setting, Sink, Unknown, keep_origins, option
from streamlint.model.errors import InputError
from streamlint.model.records import replace
from streamlint.model.secrets import mask_options

# libcst's native parser overflows its stack (a segfault, not an exception) near 1,500
# nested brackets (measured on an 8 MB stack); it reads a few hundred fine, which the
# corpus relies on though CPython itself refuses more than 200. Past this depth Python's
# own parser decides.
_BRACKETS_RE = re.compile(r"[()\[\]{}]")
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
MAX_NESTING = 1000


def interpret(text: str, path: str, prepare: Callable[[Interpreter], None] | None = None,
              project: Project | None = None) -> JobFile:
    """Parse Python source and follow it: its queries, what it could not read, the
    repository modules followed and a pipeline's materialized views. `prepare` binds names
    before it runs (a notebook's `%run` hook); with a `project`, imports of the repository's
    modules are followed."""
    limits = Limits.from_env()
    with watchdog(path, limits):
        return _interpret(text, path, prepare, project, limits)


def _interpret(text: str, path: str, prepare: Callable[[Interpreter], None] | None,
               project: Project | None, limits: Limits) -> JobFile:
    _check_readable(text, path, limits)
    module = _parse(text, path)
    loader = Loader(project, path) if project is not None else None
    interp = _run(module, text, path, prepare, loader, limits)
    settings = tuple(interp.effects.settings)
    # A function called twice with the same arguments starts one query (one checkpoint).
    queries = _distinct(sequential([_query(interp, writer, settings, index)
                                    for index, writer in enumerate(interp.effects.queries)],
                                   interp.effects.ended))
    found = pipelines.unseen(interp) + unseen(interp, queries)
    batch = pipelines.batch_datasets(interp)
    api = pipelines.api(interp)
    if loader is None:
        return JobFile(path, text, queries, found, (), batch, api)
    return JobFile(path, text, queries, tuple(loader.unseen) + found, loader.modules(), batch,
                   api, loader.commented(), sources=loader.sources())


def _check_readable(text: str, path: str, limits: Limits) -> None:
    """What libcst must not be given: a file too big, null bytes, nesting too deep."""
    check_size(text, path, limits)
    if "\0" in text:
        # Python refuses to run such a file; libcst parses it, then chokes on the literal.
        at = text.index("\0")
        raise InputError(path, text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1),
                         "syntax error: source code cannot contain null bytes")
    check_depth(text, path, limits)
    if _bracket_depth(text) > MAX_NESTING:
        # Counted naively (brackets in strings too), so Python's parser has the last word.
        check_syntax(text, path)


def _parse(text: str, path: str) -> cst.Module:
    """The file's libcst module, or the syntax error Python itself would report."""
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        line, column, message = python_syntax_error(text, path) or (
            err.raw_line, err.raw_column, str(err.message))
        raise InputError(path, line, column, "syntax error: " + message) from None
    except RecursionError:
        raise InputError(path, 1, 0, "the file is nested too deeply to read") from None


def _run(module: cst.Module, text: str, path: str,
         prepare: Callable[[Interpreter], None] | None, loader: Loader | None,
         limits: Limits) -> Interpreter:
    """The interpreter, after it followed the module within its budget."""
    try:
        interp = Interpreter(module, path, index_module(module), loader)
        interp.budget = Budget(path, limits)
        if prepare is not None:
            prepare(interp)
        interp.run_module()
    except RecursionError:
        raise InputError(path, 1, 0, "the code is nested too deeply to follow") from None
    except InputError as err:
        # A literal libcst read but Python refuses: where Python itself places the error.
        placed = python_syntax_error(text, path) if "syntax error" in str(err) else None
        if placed is None:
            raise
        line, column, message = placed
        raise InputError(path, line, column, "syntax error: " + message) from None
    return interp


def _distinct(queries: list[Query]) -> tuple[Query, ...]:
    kept: list[Query] = []
    by_sink: dict[Loc, list[Query]] = {}  # equal queries were started by one call
    for query in queries:
        same = by_sink.setdefault(query.sink.loc, [])
        if query not in same:  # by equality: a value inside may not be hashable
            same.append(query)
            kept.append(query)
    return tuple(kept)


def _bracket_depth(text: str) -> int:
    """The deepest bracket nesting, counting every bracket character (strings included)."""
    return max(accumulate(_DEPTH[b] for b in _BRACKETS_RE.findall(text)), default=0)


def _query(interp: Interpreter, writer: Writer, settings: tuple[Setting, ...],
           index: int) -> Query:
    # What leaves here is plain data: values as Spark stores them (option(k, False) is
    # "false"), a later option replacing an earlier one, no symbolic objects.
    all_options = tuple((k, option_value(v)) for k, v in last_wins(writer.options))
    options = tuple((k, v) for k, v in all_options if k.lower() != "checkpointlocation")
    checkpoint = option(all_options, "checkpointLocation")
    if checkpoint is None:
        root = next((s.value for s in reversed(settings)
                     if s.key == "spark.sql.streaming.checkpointLocation"), None)
        if root is not None and writer.query_name is not None:
            checkpoint = (keep_origins(f"{root}/{writer.query_name}", [root, writer.query_name])
                          if isinstance(root, str) and isinstance(writer.query_name, str)
                          else Unknown(f"{root}/{writer.query_name}"))
    fmt = plain(writer.format)
    if isinstance(fmt, str):
        fmt = fmt.lower() if fmt.lower() != "foreachbatch" else "foreachBatch"
    elif fmt is None:
        fmt = "parquet"
    target = None
    for key in ("__table__", "path", "topic", "tableName"):
        value = option(options, key)
        if value is not None:
            target = value
            break
    foreach = foreach_code(interp, writer.foreach) if writer.foreach else None
    if foreach is not None and target is None:
        target = foreach.function
    if target is None and fmt in ("console", "memory", "noop"):
        target = writer.query_name if fmt == "memory" else fmt
    sink = Sink(
        format=fmt,
        options=mask_options(sorted((k if k != "__table__" else "table", v)
                                    for k, v in options)),
        output_mode=writer.output_mode.lower() if isinstance(writer.output_mode, str)
        else plain(writer.output_mode),
        trigger=(writer.trigger[0], plain(writer.trigger[1])), query_name=plain(writer.query_name),
        partition_by=plain(tuple(writer.partition_by)), target=target, foreach=foreach,
        checkpoint=checkpoint, loc=writer.loc, trigger_loc=writer.trigger_loc,
        output_mode_loc=writer.output_mode_loc, checkpoint_loc=writer.checkpoint_loc,
        option_locs=tuple(dict(writer.option_locs).items()), partition_loc=writer.partition_loc,
        called_from=writer.called_from,
        cleared=generation(interp.effects.removed, index, checkpoint),
        conditions=writer.conditions, volatile=volatile_call(checkpoint), entry=writer.entry,
    )
    plan = writer.plan
    through = interp.effects.made_through
    query = Query(plan.sources, plan.operators, sink, settings, plan.unresolved, plan.columns,
                  made_through=tuple((op.loc, through[id(op)][1]) for op in plan.operators
                                     if id(op) in through))
    found = inputs_of(query)
    return replace(query, inputs=found) if found else query
