"""Read a job file into plain query records (`streamlint.model`), never running it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from streamlint.errors import InputError
from streamlint.extract.inputs import inputs_of
from streamlint.extract.volatile import volatile_call
from streamlint.model import JobFile, Loc, Query, Setting, Sink, Unknown, keep_origins, option
from streamlint.model.secrets import mask_options
from streamlint.records import replace

if TYPE_CHECKING:
    import libcst as cst

    from streamlint.extract.budget import Limits
    from streamlint.extract.interpreter import Interpreter
    from streamlint.extract.modules import Loader
    from streamlint.extract.project import Project
    from streamlint.extract.values import Writer

# A file that mentions none of these is never parsed with libcst: most files are not jobs.
# Pipeline files (SDP, DLT) have no writeStream; their imports and decorators let them in.
_STREAMING_RE = re.compile(r"\b(readStream|writeStream|read_stream)\b|\bimport dlt\b"
                           r"|\bfrom dlt import\b|\bpyspark(?: import |\.)pipelines\b"
                           r"|@(?:dp|dlt)\.")
# PEP 263: a coding cookie on the first or second line.
_CODING_RE = re.compile(rb"^(?:[^\n]*\n)?[ \t\f]*#[^\n]*?coding[:=][ \t]*([-\w.]+)")
MAX_BYTES = 2_000_000
# A notebook carries its outputs (plots as base64 images, tables) besides its code.
MAX_NOTEBOOK_BYTES = 30_000_000
# libcst's native parser overflows its stack (a segfault, not an exception) near 1,500
# nested brackets (measured on an 8 MB stack); it reads a few hundred fine, which the
# corpus relies on though CPython itself refuses more than 200. Past this depth Python's
# own parser decides.
_BRACKETS_RE = re.compile(r"[()\[\]{}]")
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
MAX_NESTING = 1000
# Notebook exports start with one of these (the Jupyter kind is known by its .ipynb name).
_NOTEBOOK_HEADERS = ("# Databricks notebook source", "-- Databricks notebook source",
                     "// Databricks notebook source")


def read_text(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, 1, 0, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, 1, 0, "is a directory, not a Python file") from None
    except OSError as err:
        raise InputError(path, 1, 0, f"cannot read: {err.strerror}") from None
    return decode_source(data, path)


def decode_source(data: bytes, path: str) -> str:
    """Source bytes as text, honouring a PEP 263 coding cookie (git blobs come as bytes)."""
    limit = MAX_NOTEBOOK_BYTES if path.lower().endswith(".ipynb") else MAX_BYTES
    if len(data) > limit:
        raise InputError(path, 1, 0, f"{len(data) // 1_000_000} MB is larger than a job file "
                         f"({limit // 1_000_000} MB at most); is this generated code?")
    cookie = _CODING_RE.match(b"\n".join(data.split(b"\n", 2)[:2]))
    encoding = cookie.group(1).decode("ascii") if cookie else "utf-8-sig"
    try:
        return data.decode(encoding)
    except LookupError:
        raise InputError(path, 1, 0, f"unknown source encoding {encoding!r}") from None
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1)
        raise InputError(path, line, column, "not UTF-8 text (cannot decode byte "
                         f"0x{data[err.start]:02x})") from None


def mentions_streaming(text: str) -> bool:
    """The cheap test every file passes before any parsing."""
    return _STREAMING_RE.search(text) is not None


def extract_file(path: str, project: Project | None = None) -> JobFile:
    """A job file on disk; the modules of its repository it imports (and the notebooks it
    `%run`s) are followed."""
    from streamlint.extract.project import on_disk

    return extract_text(read_text(path), path, project or on_disk(path))


def extract_text(text: str, path: str, project: Project | None = None) -> JobFile:
    """A job's text; with a `project`, the modules of the repository it imports are followed
    (`streamlint.extract.modules`), read through `project.files`."""
    if path.lower().endswith(".ipynb") or text.startswith(_NOTEBOOK_HEADERS):
        from streamlint.extract.notebook import convert

        converted = convert(text, path)
        if converted is not None:
            from streamlint.extract.notebook_run import extract_notebook

            return extract_notebook(text, path, converted, project)
    if not _STREAMING_RE.search(text) and not _helpers_stream(text, project):
        check_syntax(text, path)
        return JobFile(path, text, ())
    return interpret(text, path, project=project)


def check_syntax(text: str, path: str) -> None:
    """Not a streaming job, but it must still be Python: a file passed by mistake (YAML,
    a notebook's JSON) is an error, not a job whose queries all disappeared."""
    error = _python_syntax_error(text, path)
    if error is not None:
        line, column, message = error
        raise InputError(path, line, column, "syntax error: " + message)


def interpret(text: str, path: str, prepare: Callable[[Interpreter], None] | None = None,
              project: Project | None = None) -> JobFile:
    """Parse Python source and follow it: its queries, what it could not read, the
    repository modules followed and a pipeline's materialized views. `prepare` binds names
    before it runs (a notebook's `%run` hook); with a `project`, imports of the repository's
    modules are followed."""
    from streamlint.extract.budget import Limits
    from streamlint.extract.watchdog import watchdog

    limits = Limits.from_env()
    with watchdog(path, limits):
        return _interpret(text, path, prepare, project, limits)


def _interpret(text: str, path: str, prepare: Callable[[Interpreter], None] | None,
               project: Project | None, limits: Limits) -> JobFile:
    _check_readable(text, path, limits)
    module = _parse(text, path)
    loader = None
    if project is not None:
        from streamlint.extract.modules import Loader

        loader = Loader(project, path)
    interp = _run(module, text, path, prepare, loader, limits)
    from streamlint.extract import pipelines
    from streamlint.extract.coverage import unseen

    settings = tuple(interp.effects.settings)
    # A function called twice with the same arguments starts one query (one checkpoint).
    from streamlint.extract.removals import sequential

    queries = _distinct(sequential([_query(interp, writer, settings, index)
                                    for index, writer in enumerate(interp.effects.queries)],
                                   interp.effects.ended))
    found = pipelines.unseen(interp) + unseen(interp, queries)
    batch = pipelines.batch_datasets(interp)
    api = pipelines.api(interp)
    if loader is None:
        return JobFile(path, text, queries, found, (), batch, api)
    return JobFile(path, text, queries, tuple(loader.unseen) + found, loader.modules(), batch,
                   api, loader.commented())


def _check_readable(text: str, path: str, limits: Limits) -> None:
    """What libcst must not be given: a file too big, null bytes, nesting too deep."""
    from streamlint.extract.budget import check_depth, check_size

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
    import libcst as cst

    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        line, column, message = _python_syntax_error(text, path) or (
            err.raw_line, err.raw_column, str(err.message))
        raise InputError(path, line, column, "syntax error: " + message) from None
    except RecursionError:
        raise InputError(path, 1, 0, "the file is nested too deeply to read") from None


def _run(module: cst.Module, text: str, path: str,
         prepare: Callable[[Interpreter], None] | None, loader: Loader | None,
         limits: Limits) -> Interpreter:
    """The interpreter, after it followed the module within its budget."""
    # The libraries' knowledge is registered before the interpreter looks it up.
    import streamlint.extract.arguments
    import streamlint.extract.config_files
    import streamlint.extract.pyspark_api
    import streamlint.extract.python_api  # noqa: F401
    from streamlint.extract.budget import Budget
    from streamlint.extract.interpreter import Interpreter
    from streamlint.extract.positions import index_module

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
        placed = _python_syntax_error(text, path) if "syntax error" in str(err) else None
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


def _helpers_stream(text: str, project: Project | None) -> bool:
    """A job whose queries are built by the repository's modules it imports."""
    if project is None or "import" not in text:
        return False
    from streamlint.extract.modules import imports_streaming

    return imports_streaming(text, project)


def _bracket_depth(text: str) -> int:
    """The deepest bracket nesting, counting every bracket character (strings included)."""
    from itertools import accumulate

    return max(accumulate(_DEPTH[b] for b in _BRACKETS_RE.findall(text)), default=0)


def _python_syntax_error(text: str, path: str) -> tuple[int, int, str] | None:
    """Where Python itself places a syntax error, and its message.

    libcst's native parser reports the position of the token after the one at fault (often
    the next line); Python's own parser (parsing only, nothing runs) points at the fault, in
    the words people know from tracebacks.
    """
    import ast

    try:
        ast.parse(text, filename=path)
    except SyntaxError as err:  # a NUL byte is one too, with no position (Python 3.11)
        return err.lineno or 1, max((err.offset or 1) - 1, 0), err.msg
    except ValueError as err:  # e.g. a NUL byte: not Python source at all
        return 1, 0, str(err)
    except (RecursionError, MemoryError):
        pass
    return None


def _query(interp: Interpreter, writer: Writer, settings: tuple[Setting, ...],
           index: int) -> Query:
    from streamlint.extract.columns import last_wins, option_value, plain
    from streamlint.extract.pyspark_api import foreach_code
    from streamlint.extract.removals import generation

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
        cleared=generation(interp.effects.removed, index, checkpoint),
        conditions=writer.conditions, volatile=volatile_call(checkpoint), entry=writer.entry,
    )
    plan = writer.plan
    query = Query(plan.sources, plan.operators, sink, settings, plan.unresolved, plan.columns)
    found = inputs_of(query)
    return replace(query, inputs=found) if found else query


def preload(notebooks: bool = False) -> None:
    """Import the parsers now (before `check` forks its workers, so each need not): libcst, the
    interpreter, and nbformat when notebooks are to be read (about half a second)."""
    import libcst  # noqa: F401

    import streamlint.extract.arguments
    import streamlint.extract.config_files
    import streamlint.extract.interpreter
    import streamlint.extract.positions  # noqa: F401
    import streamlint.extract.pyspark_api
    import streamlint.extract.python_api  # noqa: F401

    if notebooks:
        import nbformat  # noqa: F401
