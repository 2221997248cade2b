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


class FileError:
    """An InputError as plain data: crosses process boundaries and reaches the formatters,
    which place it on the file's line (a GitHub annotation, a SARIF notification)."""

    __slots__ = ("path", "line", "column", "message")

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        self.path, self.line, self.column, self.message = path, line, column, message

    @classmethod
    def of(cls, err: InputError) -> FileError:
        return cls(err.path, err.line, err.column, err.message)

    def __getstate__(self) -> tuple[str, int, int, str]:
        return self.path, self.line, self.column, self.message

    def __setstate__(self, state: tuple[str, int, int, str]) -> None:
        self.path, self.line, self.column, self.message = state

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column + 1}: {self.message}"
