"""`[tool.streamlint]` in pyproject.toml (or a streamlint.toml): the settings a team pins.

`spark-version`, and `tables` (`[tool.streamlint.tables]`: table name or path -> DDL schema,
used by `diff --confirm` to stand in for Delta and catalog tables). An unknown key or a bad
value is an error that names the file and the key, so a typo never silently does nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from streamlint.errors import UsageError
from streamlint.records import record

KNOWN_KEYS = {"spark-version", "tables"}


@record
class Config:
    spark_version: str | None = None
    path: str | None = None
    tables: tuple[tuple[str, str], ...] = ()  # (table name or path, DDL schema)


def find_config(start: Path) -> Path | None:
    """The nearest streamlint.toml, or pyproject.toml with a [tool.streamlint] table."""
    for folder in [start, *start.parents]:
        candidate = folder / "streamlint.toml"
        if candidate.is_file():
            return candidate
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "[tool.streamlint" in candidate.read_text(
                encoding="utf-8", errors="replace"):
            return candidate
    return None


def load_config(start: Path) -> Config:
    path = find_config(start.resolve())
    if path is None:
        return Config()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{path}: not valid TOML: {err}") from None
    table = data if path.name == "streamlint.toml" else data.get("tool", {}).get("streamlint", {})
    for key in table:
        if key not in KNOWN_KEYS:
            raise UsageError(f"{path}: unknown key `{key}` in streamlint's configuration "
                             f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    version = table.get("spark-version")
    if version is not None and not isinstance(version, str):
        raise UsageError(f"{path}: `spark-version` must be a string such as \"3.5\"")
    tables = table.get("tables", {})
    if not isinstance(tables, dict) or not all(isinstance(v, str) for v in tables.values()):
        raise UsageError(f"{path}: `tables` must map table names or paths to DDL schema strings "
                         "such as \"order_id BIGINT, amount DOUBLE\"")
    return Config(spark_version=version, path=str(path), tables=tuple(tables.items()))
