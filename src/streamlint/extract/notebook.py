"""Notebooks as the Python a reader would run: Jupyter `.ipynb` and Databricks exports.

`convert(text, path)` is called before libcst. For a plain Python file it returns None (a
check of the path and the first line, nothing imported). For a notebook it returns the code
cells as one Python source, magics made neutral line for line (`notebook_cells`), the SQL
cells (reported as not analysed), cells in other languages that mention streaming, and a map
from the source's lines back to the file:

- a Databricks source export (`# Databricks notebook source`, cells split by
  `# COMMAND ----------`) keeps its own line numbers: magic lines are replaced in place;
- a Jupyter notebook's lines map to the line of the `.ipynb` JSON where the cell's source
  line is stored (nbformat writes one JSON string per line), the column inside that string.
"""

from __future__ import annotations

import ast
import hashlib
import re
from bisect import bisect_right
from typing import Any

from streamlint.extract import notebook_cells as cells
from streamlint.extract import notebook_load
from streamlint.extract.ipynb_lines import JupyterLines, cell_offset, cell_source
from streamlint.model import Loc, Unseen
from streamlint.model.errors import InputError
from streamlint.model.records import is_record, record, replace

DATABRICKS_HEADER = "# Databricks notebook source"
DATABRICKS_SEPARATOR = "# COMMAND ----------"
_OTHER_EXPORTS = {"-- Databricks notebook source": "SQL", "// Databricks notebook source": "Scala"}
# SQL that can start or shape a streaming query by itself.
_STREAMING_SQL = re.compile(r"\bstream\s*\(|\bstream\s+\w|\bstreaming\s+(live\s+)?table\b|"
                            r"\bread_files\b|\bcloud_files\b|\breadStream\b", re.IGNORECASE)
# Literals and quoted names (a path `.../joining-stream-stream/...` names no stream).
_SQL_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")


@record
class SqlCell:
    """A SQL cell (`%sql`, `%%sql`): not analysed yet, so it is reported, never dropped."""

    number: int
    words: str
    streaming: bool  # the SQL itself names a stream, a streaming table, read_files, ...
    loc: Loc
    read_only: bool = False  # only queries and inspection (SELECT, DESCRIBE, SHOW, ...)
    call: str | None = None  # `spark.sql(...)` run in its place, when the SQL is all read
    # A plain CREATE TABLE with its columns (`sql.cells.plain_ddl`): a digest of its text, so
    # the same cell in both versions is no change. "" for any other SQL: always asked about.
    fingerprint: str = ""

    def unseen(self) -> Unseen:
        return Unseen("sql", f"the %sql cell {self.number} ({self.words}) is SQL, which "
                      "streamlint does not analyse yet", self.loc, self.fingerprint)


@record(frozen=False)
class Converted:
    """A notebook as Python source, and what the Python does not show."""

    source: str
    lines: Any  # JupyterLines | DatabricksLines: where a source line is in the file
    sql: tuple[SqlCell, ...]
    unseen: tuple[Unseen, ...]  # cells in other languages that mention streaming

    @property
    def runs(self) -> bool:
        return cells.RUN_HOOK in self.source


def is_notebook_path(path: str) -> bool:
    return path.lower().endswith(".ipynb")


def convert(text: str, path: str) -> Converted | None:
    """The notebook in `text` as Python, or None for a plain Python file."""
    if is_notebook_path(path):
        return _jupyter(text, path)
    head = text[:40]
    for header, language in _OTHER_EXPORTS.items():
        if head.startswith(header):
            raise InputError(path, 1, 0, f"a Databricks {language} notebook: streamlint reads "
                             "Python notebooks only (a .py export or an .ipynb)")
    if not head.startswith(DATABRICKS_HEADER):
        return None
    if path.lower().endswith(".r"):
        raise InputError(path, 1, 0, "a Databricks R notebook: streamlint reads Python "
                         "notebooks only (a .py export or an .ipynb)")
    return _databricks(text, path)


# -- Databricks source exports --------------------------------------------------------------


class DatabricksLines:
    """A Databricks export keeps its lines; only `%python` cells' columns move by `# MAGIC `."""

    def __init__(self, starts: list[int], shifts: dict[int, int]) -> None:
        self.starts = starts  # the first line of each cell
        self.shifts = shifts

    def place(self, line: int, column: int) -> tuple[int, int]:
        return line, column + self.shifts.get(line, 0)

    def cell(self, line: int) -> tuple[int, int]:
        number = bisect_right(self.starts, line)
        return number, line - self.starts[max(number - 1, 0)] + 1


def _databricks(text: str, path: str) -> Converted:
    lines = text.split("\n")
    out = list(lines)
    starts: list[int] = []
    shifts: dict[int, int] = {}
    sql: list[SqlCell] = []
    unseen: list[Unseen] = []
    # Cell boundaries: the header line, then each separator line.
    bounds = [0] + [i for i, line in enumerate(lines) if line.rstrip("\r") == DATABRICKS_SEPARATOR]
    bounds.append(len(lines))
    for number, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False), 1):
        body = [i for i in range(start + 1, end)
                if not lines[i].startswith("# DBTITLE")]
        starts.append(start + 2)  # 1-based line after the header or the separator
        first = next((i for i in body if lines[i].strip()), None)
        if first is None:
            continue
        if not lines[first].startswith("# MAGIC"):
            python = cells.python_lines([lines[i] for i in body])
            broken = _broken_cell(number, python, Loc(path, first + 1, 0))
            if broken is not None:  # the notebook runs its other cells; this one fails
                unseen.append(broken)
                python = [""] * len(python)
            for i, line in zip(body, python, strict=True):
                out[i] = line
            continue
        magic = [i for i in body if lines[i].startswith("# MAGIC")]
        content = [_unmagic(lines[i]) for i in magic]
        language, at = cells.cell_language(content)
        loc = Loc(path, first + 1, 0)
        if language == "python":
            if at >= 0:
                content[at] = ""
            for i, line in zip(magic, cells.python_lines(content), strict=True):
                out[i] = line
                shifts[i + 1] = len(lines[i]) - len(_unmagic(lines[i]))
        elif language == "sql":
            sql.append(_sql_cell(number, content[at:], loc))
            out[magic[at]] = sql[-1].call or out[magic[at]]
        elif language != "markdown":
            unseen.extend(_foreign(number, language, content, loc))
            if language == "shell":  # `%sh rm -rf chk`, `%fs rm -r chk`
                for i, line in zip(magic, cells.shell_lines(content, at), strict=True):
                    out[i] = line
    return Converted("\n".join(out), DatabricksLines(starts, shifts), tuple(sql), tuple(unseen))


def _unmagic(line: str) -> str:
    line = line.rstrip("\r")
    return line[len("# MAGIC ") :] if line.startswith("# MAGIC ") else line[len("# MAGIC") :]


def _sql_cell(number: int, lines: list[str], loc: Loc) -> SqlCell:
    """`lines` start with the magic line: `%sql`, or `%sql SELECT ...` on one line."""
    magic = lines[0].strip().lstrip("%").split(maxsplit=1)
    lines = [magic[1] if len(magic) > 1 else "", *lines[1:]]
    text = "\n".join(lines)
    from streamlint.extract.sql.cells import plain_ddl, python_call  # sqlglot, only for SQL

    streaming = _STREAMING_SQL.search(_SQL_QUOTED.sub(" ", text)) is not None
    ddl = not streaming and plain_ddl(text)
    # SQL that starts no stream does the same in both versions when its text is the same,
    # unless it takes values from outside (`${var}`, `{{param}}`, `:param`, widgets). SQL that
    # streams (`STREAM(view)`, a streaming table) may read views the Python defines, so even
    # written the same it is asked about.
    fixed = ddl or not (streaming or _SUBSTITUTED.search(_SQL_QUOTED.sub(" ", text)))
    return SqlCell(number, cells.first_words(lines) or "empty", streaming, loc,
                   _read_only(text), python_call(text),
                   "sql#" + hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]
                   if fixed else "")


# Values a SQL cell takes from outside its text: `${var}` (Spark's variable substitution,
# Databricks widgets), `{{param}}`, `:param` markers, `getArgument(...)`.
_SUBSTITUTED = re.compile(r"\$\{|\{\{|(?<![:\w]):[A-Za-z_]|\bgetArgument\s*\(|\bsession\.\w"
                          r"|\bIDENTIFIER\s*\(", re.IGNORECASE)


# Statements that read or inspect and change nothing a streaming query restarts with: a
# SELECT over a streaming view in a notebook cell is shown with a fresh temporary checkpoint.
_READ_ONLY = {"select", "with", "describe", "desc", "show", "explain", "list", "use", "values",
              "table", "from"}
_SQL_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def _read_only(text: str) -> bool:
    statements = [s.split(None, 1) for s in _SQL_COMMENT.sub(" ", text).split(";")]
    return all(not words or words[0].lower() in _READ_ONLY for words in statements)


def _foreign(number: int, language: str, lines: list[str], loc: Loc) -> list[Unseen]:
    """A cell in another language is not streamlint's to read, unless it streams."""
    if not cells.mentions_streaming(lines):
        return []
    return [Unseen("notebook", f"cell {number} is {language.lstrip('%')}, not Python, and it "
                   "mentions readStream/writeStream: streamlint does not read it", loc)]


# -- Jupyter notebooks ------------------------------------------------------------------------


def _jupyter(text: str, path: str) -> Converted:
    data = notebook_load.load(text, path)
    lines_map = JupyterLines(text)
    source: list[str] = []
    sql: list[SqlCell] = []
    unseen: list[Unseen] = []
    for number, cell in enumerate(data["cells"], 1):
        if cell.get("cell_type") != "code":
            continue
        segments, lines, line_starts = cell_source(cell.get("source", ""))
        if not segments:
            continue
        language, at = cells.cell_language(lines)
        first = next((i for i, line in enumerate(lines) if line.strip()), 0)
        loc = Loc(path, *lines_map.positions.at(cell_offset(text, segments, line_starts[first])))
        if language == "sql":
            sql.append(_sql_cell(number, lines[at:], loc))
            if sql[-1].call:  # the cell's SQL, run where the cell is
                source.append(sql[-1].call)
                lines_map.entries.append((number, at, line_starts[at], segments))
            continue
        if language != "python":
            if language != "markdown":
                unseen.extend(_foreign(number, language, lines, loc))
            if language == "shell":  # `%%sh` / `%sh rm -rf chk`: a checkpoint cleared
                for index, line in enumerate(cells.shell_lines(lines, at)):
                    source.append(line)
                    lines_map.entries.append((number, index, line_starts[index], segments))
            continue
        if at >= 0:
            lines = [*lines[:at], "", *lines[at + 1 :]]
        python = cells.python_lines(lines)
        broken = _broken_cell(number, python, loc)
        if broken is not None:  # the notebook runs its other cells; this one fails
            unseen.append(broken)
            python = [""] * len(python)
        for index, line in enumerate(python):
            source.append(line)
            lines_map.entries.append((number, index, line_starts[index], segments))
    return Converted("\n".join(source) + "\n", lines_map, tuple(sql), tuple(unseen))


def _broken_cell(number: int, python: list[str], loc: Loc) -> Unseen | None:
    """A code cell that is not valid Python: when a notebook runs, that cell fails and the
    others run, so it is left out of what is read and reported (UN03; UN08 when only the old
    version had it), its text its fingerprint (the same broken cell in both versions is no
    change). None for a valid cell."""
    text = "\n".join(python)
    try:
        ast.parse(text)
    except SyntaxError as err:
        return Unseen("broken-cell", f"cell {number} is not valid Python ({err.msg}, line "
                      f"{err.lineno} of the cell): it fails when the notebook runs, and "
                      "streamlint did not read it", loc,
                      "cell#" + hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16])
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


# -- locations --------------------------------------------------------------------------------


def relocate(value: Any, maps: dict[str, Any]) -> Any:
    """Every `Loc` inside records and tuples, moved from source lines to the file's lines."""
    if isinstance(value, Loc):
        lines = maps.get(value.path)
        if lines is None:
            return value
        line, column = lines.place(value.line, value.column)
        return Loc(value.path, line, column)
    if isinstance(value, tuple):
        moved = tuple(relocate(v, maps) for v in value)
        return value if all(a is b for a, b in zip(moved, value, strict=True)) else moved
    if is_record(value):
        changes = {}
        for name in type(value).__record_fields__:
            current = getattr(value, name)
            moved = relocate(current, maps)
            if moved is not current:
                changes[name] = moved
        return replace(value, **changes) if changes else value
    return value


