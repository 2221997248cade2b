"""Where a line of a Jupyter notebook's cells is stored in its `.ipynb` JSON, and back: the
map reports use to point at a cell's line, and the code lines a suppression comment is read
from. Plain JSON positions, no notebook conversion (and none of its imports)."""

from __future__ import annotations

import functools
from bisect import bisect_right
from typing import Any

from streamlint.extract import notebook_json


class JupyterLines:
    """Where each line of the Python source is stored in the `.ipynb` file."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.positions = notebook_json.Positions(text)
        # Per source line: (cell number, line in the cell, start in the joined cell source,
        # the cell's source strings with their start in the joined source).
        self.entries: list[tuple[int, int, int, tuple]] = []

    def place(self, line: int, column: int) -> tuple[int, int]:
        if not 1 <= line <= len(self.entries):
            return line, column
        _, _, start, segments = self.entries[line - 1]
        return self.positions.at(cell_offset(self.text, segments, start + column))

    def cell(self, line: int) -> tuple[int, int]:
        if not 1 <= line <= len(self.entries):
            return 0, line
        number, index, _, _ = self.entries[line - 1]
        return number, index + 1


def cell_offset(text: str, segments: tuple, position: int) -> int:
    """The file offset of a character of a cell's joined source."""
    starts = [start for start, _ in segments]
    k = max(bisect_right(starts, position) - 1, 0)
    start, string = segments[k]
    offsets = _raw_offsets(text, string.start, string.end)
    return string.start + offsets[min(position - start, len(offsets) - 1)]


@functools.lru_cache(maxsize=4096)
def _raw_offsets(text: str, start: int, end: int) -> list[int]:
    return notebook_json.raw_offsets(text[start:end])


def cell_source(source: Any) -> tuple[tuple, list[str], list[int]]:
    """A cell's source strings (each with its start in the joined text), its lines, and
    where each line starts in the joined text."""
    strings = source if isinstance(source, list) else [source]
    segments: list[tuple[int, Any]] = []
    joined = 0
    for string in strings:
        if isinstance(string, notebook_json.At) and string:
            segments.append((joined, string))
            joined += len(string)
    text = "".join(string for _, string in segments)
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    return tuple(segments), lines, starts


@functools.lru_cache(maxsize=8)
def _index(text: str) -> tuple[list[tuple[int, int, int, int, str, int]], Any] | None:
    """For a notebook's text: (line, column, cell, line in cell, code, string start) of every
    cell source line, sorted by position in the file; None when it is not a notebook."""
    try:
        data = notebook_json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return None
    positions = notebook_json.Positions(text)
    rows = []
    for number, cell in enumerate(data["cells"], 1):
        if not isinstance(cell, dict):
            continue
        segments, lines, starts = cell_source(cell.get("source", ""))
        for index, (line, start) in enumerate(zip(lines, starts, strict=True)):
            if segments and (line or index < len(lines) - 1):
                offset = cell_offset(text, segments, start)
                rows.append((*positions.at(offset), number, index + 1, line, offset))
    rows.sort()
    return rows, positions


def code_lines(text: str) -> str:
    """A notebook's text with each JSON line that stores a cell line replaced by that code
    line (others blank): comments such as `# streamlint: ignore[...]` land on the lines
    findings point at."""
    found = _index(text)
    if found is None:
        return ""
    lines = [""] * (text.count("\n") + 1)
    for line, _, _, _, code, _ in found[0]:
        lines[line - 1] = code if not lines[line - 1] else lines[line - 1] + " " + code
    return "\n".join(lines)


def describe(text: str, line: int, column: int) -> tuple[int, int, str, int] | None:
    """For a position in a notebook's JSON: (cell, line in cell, that code line, column in
    it), for reports that show code rather than JSON. None when it is not in a cell."""
    found = _index(text)
    if found is None:
        return None
    rows, positions = found
    k = bisect_right(rows, (line, column, 1 << 30)) - 1
    if k < 0 or rows[k][0] != line:
        return None
    _, start_column, number, index, code, _ = rows[k]
    raw = column - start_column
    offsets = notebook_json.raw_offsets(text.split("\n")[line - 1][start_column:])
    decoded = max(bisect_right(offsets, raw) - 1, 0)
    return number, index, code, min(decoded, len(code))
