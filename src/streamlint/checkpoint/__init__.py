"""Read a Structured Streaming checkpoint directory, never writing into it.

`read_checkpoint(path)` returns plain records (`streamlint.checkpoint.model`); the commands
`checkpoint show`, `checkpoint offsets` and `diff --checkpoint` are built on them.
"""

from __future__ import annotations

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.reader import read_checkpoint

__all__ = ["CheckpointError", "read_checkpoint"]
