"""libcst's parser without the re-validation of every node it builds.

libcst checks each node as it is constructed (`CSTNode.__post_init__` calls `_validate`), so
that hand-built trees cannot print as invalid code. A tree the parser built from source text
is valid by construction, and the checks cost about a fifth of parsing a job file here (libcst's
own comment there says as much). Validation is switched off only for the duration of one
`parse_module` call; streamlint builds no nodes of its own, in no other thread.
"""

from __future__ import annotations

import libcst as cst


def parse_module(text: str) -> cst.Module:
    validate = cst.CSTNode.__dict__.get("__post_init__")
    if validate is None:  # a libcst that validates elsewhere: parse as it does
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _trust_the_parser  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = validate  # type: ignore[method-assign]


def _trust_the_parser(node: cst.CSTNode) -> None:
    """Stands in for `CSTNode.__post_init__` while the parser builds the tree."""
