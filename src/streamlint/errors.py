"""Errors are values at the file boundary: a path, a position and a sentence."""

from __future__ import annotations


class InputError(Exception):
    """A file streamlint cannot read as a job, reported as `path:line:col: message`."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column + 1}: {self.message}"


class UsageError(Exception):
    """Bad arguments or configuration: exit 2 with this message."""
