"""Globs over a repository's root-relative paths, as bundles and `include:` lists write them."""

from __future__ import annotations

import re


def glob_match(pattern: str, path: str) -> bool:
    """A root-relative path against a glob: `*` within a folder, `**` across folders."""
    found = _GLOBS.get(pattern)
    if found is None:
        regex = ""
        for piece in re.split(r"(\*\*/|\*\*|\*|\?)", pattern):
            regex += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(
                piece, re.escape(piece))
        found = _GLOBS[pattern] = re.compile(regex + r"\Z")
    return found.match(path) is not None


_GLOBS: dict[str, re.Pattern[str]] = {}
