"""`[tool.streamlint]` in pyproject.toml (or a streamlint.toml): the settings a team pins.

    [tool.streamlint]
    spark-version = "3.5"
    include = ["jobs/**"]             # which files `check` looks at (default: *.py, *.ipynb)
    exclude = ["jobs/scratch/**"]
    select = ["SO", "AG04"]           # only these codes or code prefixes
    ignore = ["QY02"]                 # never these
    severity = { SK05 = "incompatible", AG07 = "review" }

    [[tool.streamlint.overrides]]     # later tables win for the paths they match
    paths = ["jobs/legacy/**"]
    ignore = ["UN01"]
    spark-version = "3.5"

An unknown key or a bad value is an error that names the file and the key, so a typo never
silently does nothing. Globs are relative to the folder of the configuration file; `*`
matches across folders (fnmatch), and a pattern that matches a folder matches what is in it.

`source-roots = ["src", "libs/common"]` says where the repository's packages start (relative
to the configuration's folder) when a job's imports are followed; the default is the
repository root and `src/`, after the job's own folder.

`tables` (`[tool.streamlint.tables]`: table name or path -> DDL schema) is used by
`diff --confirm` to stand in for Delta and catalog tables.
"""

from __future__ import annotations

import sys
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

from streamlint.model.errors import UsageError
from streamlint.model.records import record
from streamlint.rulebook.book import all_rules
from streamlint.rulebook.change import VERDICTS
from streamlint.rulebook.profiles import parse_profile

KNOWN_KEYS = {"spark-version", "include", "exclude", "select", "ignore", "severity",
              "overrides", "tables", "source-roots"}
OVERRIDE_KEYS = {"paths", "spark-version", "select", "ignore", "severity"}


# Python files and Jupyter notebooks (a Databricks notebook export is a .py file).
DEFAULT_INCLUDE = ("*.py", "*.ipynb")

@record
class Override:
    """Settings for the files that match `paths`."""

    paths: tuple[str, ...]
    spark_version: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()


@record
class Config:
    spark_version: str | None = None
    path: str | None = None
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] | None = None  # None: every rule
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    overrides: tuple[Override, ...] = ()
    tables: tuple[tuple[str, str], ...] = ()  # (table name or path, DDL schema)
    # Where the repository's packages start (relative to the configuration's folder), for
    # following a job's imports; None: the repository root and `src`. The job's own folder
    # always comes first.
    source_roots: tuple[str, ...] | None = None

    @property
    def root(self) -> Path | None:
        """The folder globs are relative to."""
        return Path(self.path).parent if self.path else None

    def for_path(self, path: str) -> Config:
        """The settings that hold for one file (repository- or config-relative path)."""
        merged = self
        for override in self.overrides:
            if matches(path, override.paths):
                merged = Config(
                    spark_version=override.spark_version or merged.spark_version,
                    path=merged.path, include=merged.include, exclude=merged.exclude,
                    select=override.select if override.select is not None else merged.select,
                    ignore=merged.ignore + override.ignore,
                    severity=merged.severity + override.severity, tables=merged.tables,
                    source_roots=merged.source_roots,
                )
        return merged

    def wants_file(self, path: str) -> bool:
        return matches(path, self.include) and not matches(path, self.exclude)

    def wants_code(self, code: str) -> bool:
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(i) for i in self.ignore)

    def verdict_for(self, code: str, verdict: str) -> str:
        for key, value in reversed(self.severity):
            if code.startswith(key):
                return value
        return verdict


def matches(path: str, patterns: tuple[str, ...]) -> bool:
    """True when the path, or a folder above it, matches one of the globs."""
    pure = PurePosixPath(path.replace("\\", "/"))
    candidates = [str(pure), *(str(p) for p in pure.parents if str(p) != ".")]
    # `**/x` also matches `x` at the top, as in .gitignore and ruff.
    globs = [p.rstrip("/") for p in patterns]
    globs += [p[3:].rstrip("/") for p in patterns if p.startswith("**/")]
    return any(fnmatchcase(c, glob) for glob in globs for c in candidates)


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
    return parse_config(table, str(path))


def parse_config(table: dict[str, Any], path: str) -> Config:
    _known(table, KNOWN_KEYS, path, "")
    overrides = table.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, dict) for o in overrides):
        raise UsageError(f"{path}: `overrides` must be an array of tables "
                         "([[tool.streamlint.overrides]])")
    parsed = []
    for n, raw in enumerate(overrides):
        where = f"overrides[{n}]."
        _known(raw, OVERRIDE_KEYS, path, where)
        if "paths" not in raw:
            raise UsageError(f"{path}: `{where}paths` is required (the globs it applies to)")
        parsed.append(Override(
            paths=_strings(raw, "paths", path, where),
            spark_version=_version(raw, path, where),
            select=_codes(raw, "select", path, where) if "select" in raw else None,
            ignore=_codes(raw, "ignore", path, where),
            severity=_severity(raw, path, where),
        ))
    return Config(
        spark_version=_version(table, path, ""), path=path,
        include=_strings(table, "include", path, "") or DEFAULT_INCLUDE,
        exclude=_strings(table, "exclude", path, ""),
        select=_codes(table, "select", path, "") if "select" in table else None,
        ignore=_codes(table, "ignore", path, ""),
        severity=_severity(table, path, ""), overrides=tuple(parsed),
        tables=_tables(table, path),
        source_roots=_strings(table, "source-roots", path, "") if "source-roots" in table
        else None,
    )


def _tables(table: dict[str, Any], path: str) -> tuple[tuple[str, str], ...]:
    tables = table.get("tables", {})
    if not isinstance(tables, dict) or not all(isinstance(v, str) for v in tables.values()):
        raise UsageError(f"{path}: `tables` must map table names or paths to DDL schema strings "
                         "such as \"order_id BIGINT, amount DOUBLE\"")
    return tuple(tables.items())


def _known(table: dict[str, Any], known: set[str], path: str, where: str) -> None:
    for key in table:
        if key not in known:
            raise UsageError(f"{path}: unknown key `{where}{key}` in streamlint's configuration "
                             f"(known: {', '.join(sorted(known))})")


def _strings(table: dict[str, Any], key: str, path: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{path}: `{where}{key}` must be a list of strings")
    return tuple(value)


def _codes(table: dict[str, Any], key: str, path: str, where: str) -> tuple[str, ...]:
    """Rule codes or prefixes; one that matches no code (`ag`, `AG3`) would silently
    select or ignore nothing, so it is an error."""
    codes = _strings(table, key, path, where)
    for code in codes:
        _check_code(code, f"{where}{key}", path)
    return codes


def _check_code(code: str, key: str, path: str) -> None:
    known = [rule.code for rule in all_rules()]
    if not code or not any(c.startswith(code) for c in known):
        raise UsageError(f"{path}: `{key}`: {code!r} is no rule code or prefix of one (codes "
                         "are upper case, e.g. AG04 or AG; `streamlint rules` lists them)")


def _version(table: dict[str, Any], path: str, where: str) -> str | None:
    version = table.get("spark-version")
    if version is None:
        return None
    if not isinstance(version, str):
        raise UsageError(f"{path}: `{where}spark-version` must be a string such as \"3.5\"")

    parse_profile(version, f"{path}: `{where}spark-version` = {version!r}")
    return version


def _severity(table: dict[str, Any], path: str, where: str) -> tuple[tuple[str, str], ...]:
    value = table.get("severity", {})
    if not isinstance(value, dict):
        raise UsageError(f"{path}: `{where}severity` must be a table of CODE = \"verdict\"")
    for code, verdict in value.items():
        _check_code(code, f"{where}severity.{code}", path)
        if verdict not in VERDICTS:
            raise UsageError(f"{path}: `{where}severity.{code}` = {verdict!r} must be one of "
                             f"{', '.join(VERDICTS)}")
    return tuple(value.items())
