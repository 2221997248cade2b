"""A new version Python cannot parse, placed at the edit that broke it.

Python reports a syntax error where its parser gave up: for `'(' was never closed`, the
opening bracket, a line the change did not touch, while the edit that broke the file took
the closing bracket out six lines further. Of the edits the new version made (difflib's
hunks against the old version, which parsed), the one whose old text put back makes the file
parse again is where the error is; where none alone does, or several do, which one is not
told and the finding stays where Python reported it.
"""

from __future__ import annotations

import ast
import warnings

from streamlint.policy.at_side import Side

MAX_HUNKS = 64  # a file rewritten in many places is not tried hunk by hunk


def broken_at(old: Side, new: Side, hunks: list[tuple[str, int, int, int, int]]) -> int | None:
    """The first changed line, in the new version, of the one edit whose undoing makes the
    file parse; None where the old version did not parse either or no single edit is it."""
    edits = [h for h in hunks if h[0] != "equal"]
    if old.tree is None or new.tree is not None or not edits or len(edits) > MAX_HUNKS:
        return None
    found = [(first, last) for _, i1, i2, first, last in edits
             if _parses(new.lines[:first] + old.lines[i1:i2] + new.lines[last:])]
    if len(found) != 1:
        return None
    first, last = found[0]
    return first + 1 if last > first else None  # lines deleted: no new line shows it


def _parses(lines: list[str]) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
