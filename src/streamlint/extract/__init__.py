"""Read a job file into plain query records (`streamlint.model`), never running it.

This package's own module is the cheap half: reading a file and the tests it passes before
any parsing (`text`). Most files of a repository are not jobs and stop there; the front ends
(`script` for Python with libcst and the interpreter, `notebook` and `notebook_run` for
notebooks) are imported only for a file that needs them.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from streamlint.extract.project import Project, on_disk
from streamlint.extract.text import (
    NOTEBOOK_HEADERS,
    check_syntax,
    decode_source,
    imports_streaming,
    located,
    mentions_streaming,
    read_text,
)
from streamlint.model import JobFile
from streamlint.model.errors import InputError

if TYPE_CHECKING:
    from streamlint.extract.notebook import Converted

__all__ = ["check_syntax", "decode_source", "extract_file", "extract_text", "extract_version",
           "mentions_streaming", "preload", "read_text"]


def extract_file(path: str, project: Project | None = None, version: bool = False) -> JobFile:
    """A job file on disk; the modules of its repository it imports (and the notebooks it
    `%run`s) are followed. `version`: one of two versions compared (`extract_version`)."""
    read = extract_version if version else extract_text
    return read(read_text(path), path, project or on_disk(path))


def extract_text(text: str, path: str, project: Project | None = None) -> JobFile:
    """A job's text; with a `project`, the modules of the repository it imports are followed
    (`streamlint.extract.modules`), read through `project.files`."""
    if path.lower().endswith(".ipynb") or text.startswith(NOTEBOOK_HEADERS):
        # Imported here, for a notebook only: the notebook reader brings hashlib (OpenSSL),
        # and nbformat for an .ipynb, which no .py file needs.
        from streamlint.extract.notebook import convert

        converted = convert(text, path)
        if converted is not None:
            if not mentions_streaming(converted.source) and not converted.runs:
                return _no_query_notebook(text, path, converted)
            # Imported here: the notebook front end runs the interpreter (`script`).
            from streamlint.extract.notebook_run import extract_notebook

            return extract_notebook(text, path, converted, project)
    if not mentions_streaming(text) and not _helpers_stream(text, project):
        check_syntax(text, path)
        return JobFile(path, text, ())
    return _script().interpret(text, path, project=project)


_SYNTAX = "syntax error: "


def extract_version(text: str, path: str, project: Project | None = None) -> JobFile:
    """One of two versions being compared (`diff OLD NEW`, a file `check` finds changed). A
    streaming job that Python cannot parse is a fact about that version, which can never
    start (`JobFile.syntax_error`, judged by diff/already.py), not an error: the other version
    is still there. A file that is no streaming job keeps its error (a YAML file passed by
    mistake)."""
    try:
        return extract_text(text, path, project)
    except InputError as err:
        if not err.message.startswith(_SYNTAX) or not mentions_streaming(text):
            raise
        return JobFile(path, text, syntax_error=(err.line, err.column,
                                                 err.message.removeprefix(_SYNTAX)))


def _no_query_notebook(text: str, path: str, converted: Converted) -> JobFile:
    """A notebook that mentions no streaming and runs no other notebook: no query, but it
    must be Python, and a SQL cell that streams is said to be unread."""
    located(check_syntax, converted.lines, path, converted.source)
    unseen = [cell.unseen() for cell in converted.sql if cell.call is None and cell.streaming]
    return JobFile(path, text, (), (*unseen, *converted.unseen))


def _helpers_stream(text: str, project: Project | None) -> bool:
    """A job whose queries are built by the repository's modules it imports."""
    return project is not None and "import" in text and imports_streaming(text, project)


def _script() -> ModuleType:
    """The Python front end, imported on first need."""
    # Imported here, not with this package: libcst and the interpreter (about 0.3 s) are
    # for a file that may hold a query; most files of a repository never get this far.
    from streamlint.extract import script

    return script


def preload(notebooks: bool = False) -> None:
    """Import the parsers now (before `check` forks its workers, so each need not): libcst, the
    interpreter, and nbformat when notebooks are to be read (about half a second)."""
    _script()
    if notebooks:
        import nbformat  # noqa: F401
