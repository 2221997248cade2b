"""A notebook's JSON read with the position of every string, for locations in the file.

nbformat writes a cell's source as one JSON string per line, so a finding in a cell can point
at the line of the `.ipynb` file that holds it (what an editor, GitHub annotations and SARIF
need). Python's `json` module gives no positions; its pure-Python scanner does let a decoder
replace the string parser, so each string comes back knowing where it was written.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from bisect import bisect_right
from typing import Any


class At(str):
    """A JSON string with the offsets of its text in the file (after the opening quote,
    and of the closing quote)."""

    start: int
    end: int


class AtDict(dict):
    """A JSON object with the offset of its opening brace."""

    start: int


def loads(text: str) -> Any:
    """Parse JSON like `json.loads`, strings as `At` and objects as `AtDict`.

    Raises `json.JSONDecodeError` (with `lineno` and `colno`) for text that is not JSON.
    """
    decoder = json.JSONDecoder()
    plain_string = json.decoder.scanstring
    plain_object = json.decoder.JSONObject

    def parse_string(s: str, end: int, strict: bool = True) -> tuple[At, int]:
        value, after = plain_string(s, end, strict)
        at = At(value)
        at.start, at.end = end, after - 1
        return at, after

    def parse_object(state: tuple[str, int], *args: Any) -> tuple[AtDict, int]:
        value, after = plain_object(state, *args)
        obj = AtDict(value)
        obj.start = state[1] - 1
        return obj, after

    decoder.parse_string = parse_string  # type: ignore[assignment]
    decoder.parse_object = parse_object  # type: ignore[assignment]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # the C scanner takes no hooks
    return decoder.decode(text)


class Positions:
    """Offsets in a text turned into 1-based lines and 0-based columns."""

    def __init__(self, text: str) -> None:
        self.starts = [0]
        position = text.find("\n")
        while position >= 0:
            self.starts.append(position + 1)
            position = text.find("\n", position + 1)

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1]


def raw_offsets(raw: str) -> list[int]:
    """For the raw text between a JSON string's quotes: the raw offset of each decoded
    character, and one past the end (escapes take several raw characters, one decoded)."""
    offsets: list[int] = []
    i = 0
    while i < len(raw):
        offsets.append(i)
        if raw[i] != "\\":
            i += 1
        elif raw[i + 1 : i + 2] != "u":
            i += 2
        else:
            code = int(raw[i + 2 : i + 6], 16)
            i += 6
            # A surrogate pair is one Python character.
            if 0xD800 <= code < 0xDC00 and raw[i : i + 2] == "\\u":
                i += 6
    offsets.append(len(raw))
    return offsets
