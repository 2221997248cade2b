"""A checkpoint file that cannot be read: `path: message`, exit 2, no traceback."""

from __future__ import annotations

from streamlint.model.errors import InputError


class CheckpointError(InputError):
    """A missing, truncated or unknown checkpoint file, named by its path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, 1, 0, message)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"
