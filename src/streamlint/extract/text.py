"""A job file's text, and the cheap tests it passes before any parsing: its reading
(size, encoding), whether it mentions streaming, whether it is Python at all.

No libcst here, nothing that parses a job: most files of a repository stop at these tests
(`streamlint.extract.extract_text`), and importing this module costs them nothing more.
"""

from __future__ import annotations

import ast
import functools
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamlint.extract.imports import reachable, search_roots
from streamlint.model.errors import InputError

if TYPE_CHECKING:
    from streamlint.extract.project import Project

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
# Notebook exports start with one of these (the Jupyter kind is known by its .ipynb name).
NOTEBOOK_HEADERS = ("# Databricks notebook source", "-- Databricks notebook source",
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


def imports_streaming(text: str, project: Project) -> bool:
    """Whether a file that never says `readStream` or `writeStream` imports, directly or not,
    a module of the repository that does (its queries are built by helpers)."""
    roots = search_roots(project.job, project.source_roots)
    modules = reachable(project.job, text, project.files.read, roots)
    return any(mentions_streaming(found) for found in modules.values())


def check_syntax(text: str, path: str) -> None:
    """Not a streaming job, but it must still be Python: a file passed by mistake (YAML,
    a notebook's JSON) is an error, not a job whose queries all disappeared."""
    error = python_syntax_error(text, path)
    if error is not None:
        line, column, message = error
        raise InputError(path, line, column, "syntax error: " + message)


def python_syntax_error(text: str, path: str) -> tuple[int, int, str] | None:
    """Where Python itself places a syntax error, and its message.

    libcst's native parser reports the position of the token after the one at fault (often
    the next line); Python's own parser (parsing only, nothing runs) points at the fault, in
    the words people know from tracebacks.
    """
    try:
        ast.parse(text, filename=path)
    except SyntaxError as err:  # a NUL byte is one too, with no position (Python 3.11)
        return err.lineno or 1, max((err.offset or 1) - 1, 0), err.msg
    except ValueError as err:  # e.g. a NUL byte: not Python source at all
        return 1, 0, str(err)
    except (RecursionError, MemoryError):
        pass
    return None




def located(function: Callable[..., Any], lines: Any, path: str, *args: Any) -> Any:
    """`function(args[0], path, *args[1:])`, an InputError's source line moved to the line of
    the notebook whose cells `lines` maps (its cell and the line in it said too)."""
    try:
        return function(*args[:1], path, *args[1:])
    except InputError as err:
        line, column = lines.place(err.line, err.column)
        number, index = lines.cell(err.line)
        where = f" (cell {number}, line {index})" if number else ""
        raise InputError(path, line, column, err.message + where) from None


@functools.lru_cache(maxsize=8)
def python_tree(text: str) -> ast.Module | BaseException:
    """A file's syntax tree by Python's own parser, parsed once however many readers ask for
    it (the depth check, findings placed at the change, suppression comments; read-only for
    all of them), or the error where Python cannot parse it."""
    try:
        with warnings.catch_warnings():  # "'int' object is not callable": the job's concern
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        return err
