"""Read a job file into plain query records (`streamlint.model`), never running it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from streamlint.errors import InputError
from streamlint.model import JobFile, Query, Setting, Sink, Unknown, option

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter
    from streamlint.extract.values import Writer

# A file that mentions neither is never parsed with libcst: most files are not jobs.
_STREAMING_RE = re.compile(r"\b(readStream|writeStream)\b")
# PEP 263: a coding cookie on the first or second line.
_CODING_RE = re.compile(rb"^(?:[^\n]*\n)?[ \t\f]*#[^\n]*?coding[:=][ \t]*([-\w.]+)")
MAX_BYTES = 2_000_000
# libcst's native parser overflows its stack (a segfault, not an exception) near 1,500
# nested brackets (measured on an 8 MB stack); it reads a few hundred fine, which the
# corpus relies on though CPython itself refuses more than 200. Past this depth Python's
# own parser decides.
_BRACKETS_RE = re.compile(r"[()\[\]{}]")
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
MAX_NESTING = 1000


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
    if len(data) > MAX_BYTES:
        raise InputError(path, 1, 0, f"{len(data) // 1_000_000} MB is larger than a job file "
                         f"({MAX_BYTES // 1_000_000} MB at most); is this generated code?")
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


def extract_file(path: str) -> JobFile:
    return extract_text(read_text(path), path)


def extract_text(text: str, path: str) -> JobFile:
    if not _STREAMING_RE.search(text):
        # Not a streaming job, but it must still be Python: a file passed by mistake (YAML,
        # a notebook's JSON) is an error, not a job whose queries all disappeared.
        error = _python_syntax_error(text, path)
        if error is not None:
            line, column, message = error
            raise InputError(path, line, column, "syntax error: " + message)
        return JobFile(path, text, ())
    from streamlint.extract.budget import Budget, Limits, check_depth, check_size

    limits = Limits.from_env()
    check_size(text, path, limits)
    if "\0" in text:
        # Python refuses to run such a file; libcst parses it, then chokes on the literal.
        at = text.index("\0")
        raise InputError(path, text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1),
                         "syntax error: source code cannot contain null bytes")
    check_depth(text, path, limits)
    if _bracket_depth(text) > MAX_NESTING:
        # Counted naively (brackets in strings too), so Python's parser has the last word.
        error = _python_syntax_error(text, path)
        if error is not None:
            line, column, message = error
            raise InputError(path, line, column, "syntax error: " + message)
    import libcst as cst

    from streamlint.extract.interpreter import Interpreter
    from streamlint.extract.positions import index_module

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        line, column, message = _python_syntax_error(text, path) or (
            err.raw_line, err.raw_column, str(err.message))
        raise InputError(path, line, column, "syntax error: " + message) from None
    except RecursionError:
        raise InputError(path, 1, 0, "the file is nested too deeply to read") from None
    try:
        interp = Interpreter(module, path, index_module(module))
        interp.budget = Budget(path, limits)
        interp.run_module()
    except RecursionError:
        raise InputError(path, 1, 0, "the code is nested too deeply to follow") from None
    from streamlint.extract.coverage import unseen

    settings = tuple(interp.effects.settings)
    # A function called twice with the same arguments starts one query (one checkpoint).
    queries = tuple(dict.fromkeys(_query(interp, writer, settings)
                                  for writer in interp.effects.queries))
    return JobFile(path, text, queries, unseen(interp, queries))


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


def _query(interp: Interpreter, writer: Writer, settings: tuple[Setting, ...]) -> Query:
    from streamlint.extract.columns import last_wins, option_value, plain
    from streamlint.extract.pyspark_api import foreach_code

    # What leaves here is plain data: values as Spark stores them (option(k, False) is
    # "false"), a later option replacing an earlier one, no symbolic objects.
    all_options = tuple((k, option_value(v)) for k, v in last_wins(writer.options))
    options = tuple((k, v) for k, v in all_options if k.lower() != "checkpointlocation")
    checkpoint = option(all_options, "checkpointLocation")
    if checkpoint is None:
        root = next((s.value for s in reversed(settings)
                     if s.key == "spark.sql.streaming.checkpointLocation"), None)
        if root is not None and writer.query_name is not None:
            checkpoint = (f"{root}/{writer.query_name}"
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
        options=tuple(sorted((k if k != "__table__" else "table", v) for k, v in options)),
        output_mode=writer.output_mode.lower() if isinstance(writer.output_mode, str)
        else plain(writer.output_mode),
        trigger=(writer.trigger[0], plain(writer.trigger[1])), query_name=plain(writer.query_name),
        partition_by=plain(tuple(writer.partition_by)), target=target, foreach=foreach,
        checkpoint=checkpoint, loc=writer.loc, trigger_loc=writer.trigger_loc,
        output_mode_loc=writer.output_mode_loc, checkpoint_loc=writer.checkpoint_loc,
    )
    plan = writer.plan
    return Query(plan.sources, plan.operators, sink, settings, plan.unresolved, plan.columns)
