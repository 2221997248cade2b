"""What every Spark metadata log shares (`HDFSMetadataLog`): batch files and a version line.

A log directory holds one file per batch named by its id in plain decimal; every other name
(`.3.crc`, `.3.<uuid>.tmp`, Spark 4.1's `3.crc`) is ignored, exactly as Spark's `isBatchFile`
does. Only the entries a command needs are read, never the whole history.
"""

from __future__ import annotations

import json
import re

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.fs import CheckpointFS

_VERSION_RE = re.compile(r"^v([0-9]+)$")


def batch_ids(fs: CheckpointFS, directory: str) -> list[int] | None:
    """Sorted batch ids in a log directory, None when the directory does not exist."""
    names = fs.list_names(directory)
    if names is None:
        return None
    return sorted(int(name) for name in names if name.isdigit())


def read_text(fs: CheckpointFS, path: str) -> str:
    data = fs.read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CheckpointError(path, f"not UTF-8 text (byte {err.start})") from None


def split_version(path: str, text: str, max_version: int) -> tuple[int, list[str]]:
    """The `v<k>` version line and the lines after it, refusing versions Spark would refuse."""
    if not text:
        raise CheckpointError(path, "empty file (a partial write?)")
    # Spark reads with Scala's getLines(): a final line break (an editor's, a copy tool's)
    # ends the last line rather than adding an empty one, and "\r\n" is a line break too.
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    match = _VERSION_RE.match(lines[0].strip())
    if match is None:
        raise CheckpointError(path, f"first line {lines[0][:40]!r} is not a log version like "
                              "'v1'; is this a Spark checkpoint file?")
    version = int(match.group(1))
    if version < 1 or version > max_version:
        raise CheckpointError(path, f"log version v{version} is not one streamlint knows "
                              f"(v1-v{max_version}); written by a newer Spark?")
    return version, lines[1:]


def parse_json(path: str, text: str, what: str) -> object:
    try:
        return json.loads(text)
    except ValueError as err:
        raise CheckpointError(path, f"{what} is not valid JSON ({err.msg} at column "
                              f"{err.colno}); truncated file?") from None


def parse_object(path: str, text: str, what: str) -> dict:
    value = parse_json(path, text, what)
    if not isinstance(value, dict):
        raise CheckpointError(path, f"{what} is not a JSON object")
    return value
