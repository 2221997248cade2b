"""Read-only access to a checkpoint tree, local or remote (fsspec), with one small interface.

The readers only ever list a directory and read a file; nothing here can write. Local paths
use `os` directly so the common case never imports fsspec.
"""

from __future__ import annotations

import os
import re
from typing import Protocol

from streamlint.checkpoint.errors import CheckpointError

_URL_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


class CheckpointFS(Protocol):
    """What a reader may do with a checkpoint: list names in a directory, read a file."""

    def join(self, *parts: str) -> str: ...

    def list_names(self, directory: str) -> list[str] | None:
        """The entry names of `directory`, or None when it does not exist."""
        ...

    def read_bytes(self, path: str) -> bytes:
        """The file's bytes; CheckpointError naming the path when it cannot be read."""
        ...

    def is_dir(self, path: str) -> bool: ...

    cheap_listing: bool


class LocalFS:
    """The local filesystem (and `file://` URLs)."""

    cheap_listing = True  # listing every state partition costs microseconds here

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)

    def list_names(self, directory: str) -> list[str] | None:
        try:
            return os.listdir(directory)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise CheckpointError(directory, f"cannot list: {err.strerror}") from None

    def read_bytes(self, path: str) -> bytes:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            raise CheckpointError(path, "no such file") from None
        except IsADirectoryError:
            raise CheckpointError(path, "is a directory, expected a file") from None
        except OSError as err:
            raise CheckpointError(path, f"cannot read: {err.strerror}") from None

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)


class RemoteFS:
    """Any fsspec filesystem (s3://, gs://, abfss://, ...); needs `streamlint[remote]`."""

    cheap_listing = False  # one request per directory: check partition 0 only

    def __init__(self, url: str, protocol: str) -> None:
        try:
            import fsspec
        except ImportError:
            raise CheckpointError(url, f"reading {protocol}:// paths needs fsspec: "
                                  "pip install 'streamlint[remote]'") from None
        try:
            self.fs = fsspec.filesystem(protocol, **_remote_options(protocol))
        except (ImportError, ValueError) as err:
            raise CheckpointError(url, f"no filesystem for {protocol}://: {err}") from None
        self.protocol = protocol

    def join(self, *parts: str) -> str:
        return "/".join(p.rstrip("/") for p in parts)

    def _strip(self, path: str) -> str:
        return self.fs._strip_protocol(path)

    def list_names(self, directory: str) -> list[str] | None:
        try:
            entries = self.fs.ls(self._strip(directory), detail=False, refresh=True)
        except FileNotFoundError:
            return None
        except Exception as err:  # noqa: BLE001 - any backend error becomes a named error
            raise CheckpointError(directory, f"cannot list: {err}") from None
        base = self._strip(directory).rstrip("/")
        names = [e.rstrip("/").rsplit("/", 1)[-1] for e in entries]
        return [n for n, e in zip(names, entries, strict=True) if e.rstrip("/") != base]

    def read_bytes(self, path: str) -> bytes:
        try:
            return self.fs.cat_file(self._strip(path))
        except FileNotFoundError:
            raise CheckpointError(path, "no such file") from None
        except IsADirectoryError:
            raise CheckpointError(path, "is a directory, expected a file") from None
        except Exception as err:  # noqa: BLE001
            raise CheckpointError(path, f"cannot read: {err}") from None

    def is_dir(self, path: str) -> bool:
        try:
            return bool(self.fs.isdir(self._strip(path)))
        except Exception:  # noqa: BLE001
            return False


def _remote_options(protocol: str) -> dict[str, object]:
    """Endpoint override for S3-compatible stores (MinIO, moto): the usual AWS variable."""
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if protocol in ("s3", "s3a") and endpoint:
        return {"client_kwargs": {"endpoint_url": endpoint}}
    return {}


def open_fs(path: str) -> tuple[CheckpointFS, str]:
    """The filesystem for `path` and the path as that filesystem spells it."""
    match = _URL_RE.match(path)
    if match is None:
        return LocalFS(), path.rstrip("/") or "/"
    protocol = match.group(1).lower()
    if protocol == "file":
        return LocalFS(), path[len("file://"):].rstrip("/") or "/"
    if protocol == "s3a":  # Hadoop's name for the same store
        path, protocol = "s3://" + path[len("s3a://"):], "s3"
    return RemoteFS(path, protocol), path.rstrip("/")
