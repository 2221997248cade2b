"""The rulebook as loaded: `rules/*.toml` read (and cached) into `Rule` records, checked as
they load (a verdict, a change kind or a `when` that cannot match is an error, not a rule
that never fires), and found by code or name."""

from __future__ import annotations

import binascii
import contextlib
import marshal
import os
import re
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from streamlint.model.records import __file__ as records_file
from streamlint.model.records import fields, rebuilt
from streamlint.rulebook.change import CHANGE_KINDS, VERDICTS, facts_of
from streamlint.rulebook.change import __file__ as change_file
from streamlint.rulebook.rule import Example, Rule, parse_version
from streamlint.rulebook.rule import __file__ as rule_file


def rules_dir() -> Path:
    packaged = Path(__file__).resolve().parents[1] / "_rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "rules"


@cache
def load_rules(directory: str | None = None) -> tuple[Rule, ...]:
    book = _book(Path(directory) if directory else rules_dir())
    if book.rules is None:
        book.rules = _matrix_rules(book.tables)
        book.save()
    return book.rules


def _matrix_rules(tables: list[tuple[str, dict[str, Any]]]) -> tuple[Rule, ...]:
    releases = runtime_releases(dict(tables).get("runtimes", {}))
    rules: list[Rule] = []
    for family, data in tables:
        for raw in data.get("rule", []):
            if "raised_by" not in raw:  # streamlint's own codes: streamlint.own_rules
                rules.append(_rule(raw, family, releases))
    codes = [r.code for r in rules]
    duplicated = {c for c in codes if codes.count(c) > 1}
    if duplicated:
        raise ValueError(f"rule codes used twice: {sorted(duplicated)}")
    # Most specific first: rules with more `when` facts win, then rules bound to Databricks
    # runtimes, then rules bound to a Spark range.
    return tuple(sorted(rules, key=lambda r: (-len(r.when), 0 if r.databricks else 1,
                                              0 if r.spark else 1)))


def runtime_releases(runtimes: dict[str, Any]) -> dict[int, tuple[int, ...]]:
    """Databricks runtime major -> its last feature release (`release` in
    rules/runtimes.toml): the release a runtime named by its major alone is judged as."""
    return {int(entry["runtime"]): parse_version(str(entry["release"]))
            for entry in runtimes.get("databricks", [])}


def known_runtime(version: tuple[int, ...], releases: dict[int, tuple[int, ...]]) -> bool:
    """Whether `version` ("17.3", "18") is a release of a Databricks runtime with a profile."""
    last = releases.get(version[0])
    return last is not None and version[1:2] <= last[1:2]


def read_tables(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """The parsed rule files (`rules/*.toml`), from the user's cache when they are unchanged."""
    return _book(root).tables


# The keys a rule of the matrix may have: any other is a typo that would silently widen it.
_RULE_KEYS = {"code", "name", "change", "when", "spark", "databricks", "verdict", "message",
              "why", "fix", "docs", "examples", "value_free", "by_design"}


# What the cached records are made by: a cache written by other code is not read.
_CODE = repr([(name, Path(module).stat().st_mtime_ns) for name, module in (
    ("book", __file__), ("rule", rule_file), ("records", records_file),
    ("change", change_file))])


class _Book:
    """The rule files as read, and the rules built from them once checked; written to the
    user's cache (`~/.cache/streamlint`, in the format of the interpreter's own bytecode
    cache, `marshal`, which unlike pickle costs no import; keyed by the files' paths, sizes
    and modification times and by this code's) so that a run neither parses the TOML (about
    10 ms) nor builds and checks every rule again (about 8 ms): a tenth of what a whole
    `diff` costs. Any failure to read or write the cache just means doing the work."""

    def __init__(self, stamp: str, path: Path | None,
                 tables: list[tuple[str, dict[str, Any]]] | None,
                 rules: tuple[Rule, ...] | None = None, own: tuple[Rule, ...] | None = None,
                 packed: Sequence[tuple[str, bytes]] = ()) -> None:
        self.stamp, self.path, self.rules, self.own = stamp, path, rules, own
        # Read from the cache, each file's table stays packed (marshal's bytes) until it is
        # asked for: a run reads three of them (runtimes, options, pipelines), not all.
        self.packed = list(packed)
        self.decoded: dict[str, dict[str, Any]] = {}
        self.parsed = tables

    @property
    def tables(self) -> list[tuple[str, dict[str, Any]]]:
        if self.parsed is None:
            self.parsed = [(family, self.table(family)) for family, _ in self.packed]
        return self.parsed

    def table(self, family: str) -> dict[str, Any]:
        """One rule file's parsed table, {} when there is no such file."""
        if self.parsed is not None:
            return next((data for name, data in self.parsed if name == family), {})
        if family not in self.decoded:
            packed = next((data for name, data in self.packed if name == family), None)
            self.decoded[family] = {} if packed is None else marshal.loads(packed)
        return self.decoded[family]

    def save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_bytes(marshal.dumps(
                {"stamp": self.stamp,
                 "tables": [(family, marshal.dumps(data)) for family, data in self.tables],
                 "rules": _plain(self.rules), "own": _plain(self.own)}))
            os.replace(temporary, self.path)
        except (OSError, ValueError):  # ValueError: a value marshal cannot write
            return
        _prune(self.path)


# How many rule caches the user's cache keeps: one is written whenever the rules or this code
# change (an upgrade, another project's rules); older ones are removed when a new one is.
KEEP = 8


def _prune(written: Path) -> None:
    """Remove all but the `KEEP` newest rule caches beside `written` (and the pickle and JSON
    caches of earlier versions); a file another process removes first, or cannot be removed,
    is left."""
    try:
        found = [(path.stat().st_mtime_ns, path) for path in written.parent.glob("rules-*")
                 if path.suffix in (".marshal", ".pickle", ".json", ".tmp")]
    except OSError:
        return
    found.sort(reverse=True)
    for _, path in found[KEEP:]:
        if path != written:
            with contextlib.suppress(OSError):
                path.unlink()


def _plain(rules: tuple[Rule, ...] | None) -> tuple[tuple[Any, ...], ...] | None:
    """Rules as marshal writes them: each the tuple of its fields, its examples too."""
    if rules is None:
        return None
    return tuple(tuple(tuple(_fields_of(e) for e in value) if name == "examples" else value
                       for name, value in zip(fields(rule), _fields_of(rule), strict=True))
                 for rule in rules)


def _fields_of(value: Rule | Example) -> tuple[Any, ...]:
    return tuple(getattr(value, name) for name in fields(value))


_EXAMPLES = Rule.__record_fields__.index("examples")  # type: ignore[attr-defined]


def _built(plain: tuple[tuple[Any, ...], ...] | None) -> tuple[Rule, ...] | None:
    """The rules `_plain` wrote."""
    if plain is None:
        return None
    return tuple(rebuilt(Rule, (*values[:_EXAMPLES],
                                tuple(rebuilt(Example, e) for e in values[_EXAMPLES]),
                                *values[_EXAMPLES + 1:])) for values in plain)


def _book(root: Path) -> _Book:
    # One listing and one stat a file (a run asks for the book a few times): not pathlib's
    # glob and two stats a file, which were 1 ms of a `diff`.
    try:
        found = sorted((entry.path, entry.stat()) for entry in os.scandir(root)
                       if entry.name.endswith(".toml"))
    except FileNotFoundError:
        found = []
    stamp = repr(([(path, st.st_size, st.st_mtime_ns) for path, st in found], _CODE))
    return _read(tuple(Path(path) for path, _ in found), stamp, str(_cache_dir()),
                 os.environ.get("STREAMLINT_NO_CACHE") is None)


@cache
def _read(paths: tuple[Path, ...], stamp: str, cache_dir: str, use_cache: bool) -> _Book:
    cache = (Path(cache_dir) / f"rules-{binascii.crc32(stamp.encode()):08x}.marshal"
             if use_cache else None)
    if cache is not None:
        try:
            cached = marshal.loads(cache.read_bytes())
            if isinstance(cached, dict) and cached.get("stamp") == stamp:
                return _Book(stamp, cache, None, _built(cached["rules"]),
                             _built(cached["own"]), packed=cached["tables"])
        except Exception:  # noqa: BLE001 - a cache that cannot be read is no cache
            pass
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    tables = []
    for path in paths:
        with path.open("rb") as handle:
            tables.append((path.stem, tomllib.load(handle)))
    book = _Book(stamp, cache, tables)
    book.save()
    return book


def rule_data(family: str) -> dict[str, Any]:
    """The parsed `rules/<family>.toml` (its data beside the rules, e.g. options.toml)."""
    return _book(rules_dir()).table(family)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "streamlint"


def user_cache() -> Path | None:
    """Where streamlint keeps what it would otherwise work out on every run
    (`~/.cache/streamlint`); None when STREAMLINT_NO_CACHE is set."""
    return None if os.environ.get("STREAMLINT_NO_CACHE") is not None else _cache_dir()


def _rule(raw: dict[str, Any], family: str, releases: dict[int, tuple[int, ...]]) -> Rule:
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise ValueError(f"{raw['code']}: unknown keys {unknown}")
    when = tuple(
        (key, tuple(value) if isinstance(value, list) else (str(value),))
        for key, value in sorted(raw.get("when", {}).items())
    )
    if raw["verdict"] not in VERDICTS:
        raise ValueError(f"{raw['code']}: unknown verdict {raw['verdict']!r}")
    kinds = raw["change"] if isinstance(raw["change"], list) else [raw["change"]]
    unknown = sorted(set(kinds) - CHANGE_KINDS)
    if unknown:
        raise ValueError(f"{raw['code']}: no change of kind {unknown} exists")
    check_when(f"rules/{family}.toml", raw["code"], kinds, when)
    _bounds(raw["code"], "Spark", raw.get("spark", ""))
    for bound in _bounds(raw["code"], "Databricks runtime", raw.get("databricks", "")):
        if not known_runtime(bound, releases):
            raise ValueError(f"{raw['code']}: Databricks Runtime "
                             f"{'.'.join(map(str, bound))} has no profile (rules/runtimes.toml)")
    examples = tuple(Example(**example) for example in raw.get("examples", []))
    for example in examples:
        if example.databricks and (example.spark or not known_runtime(
                parse_version(example.databricks), releases)):
            raise ValueError(f"{raw['code']}: example {example.name!r}: name a known "
                             "Databricks runtime, or a Spark version, not both")
    return Rule(
        code=raw["code"], name=raw["name"], verdict=raw["verdict"],
        change=tuple(raw["change"]) if isinstance(raw["change"], list) else (raw["change"],),
        message=raw["message"], why=raw["why"].strip(), fix=raw.get("fix", "").strip(),
        docs=raw["docs"], spark=raw.get("spark", ""), when=when, examples=examples,
        family=family, value_free=bool(raw.get("value_free", False)),
        by_design=bool(raw.get("by_design", False)), databricks=raw.get("databricks", ""),
    )


def _bounds(code: str, what: str, spec: str) -> list[tuple[int, ...]]:
    """The versions a range (`>=3.5,<4.2`) names; a range that cannot be read is refused."""
    bounds = []
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        if not re.fullmatch(r"(>=|<=|==|>|<)\d+(\.\d+)*", clause):
            raise ValueError(f"{code}: cannot read the {what} range {spec!r}")
        bounds.append(parse_version(clause.lstrip("<>=")))
    return bounds


def check_when(where: str, code: str, kinds: list[str],
               when: tuple[tuple[str, tuple[str, ...]], ...]) -> None:
    """Refuse a `when` key that a kind the rule judges does not carry, or a value it never
    takes: such a rule would silently never match."""
    for kind in kinds:
        facts = facts_of(kind)
        for key, values in when:
            if key not in facts:
                raise ValueError(
                    f"{where}: rule {code}: `when` key {key!r} is not a fact of a {kind} "
                    f"change (its facts: {', '.join(sorted(facts))})")
            allowed = facts[key]
            wrong = sorted(set(values) - allowed) if allowed is not None else []
            if wrong:
                raise ValueError(
                    f"{where}: rule {code}: `when` {key} = {wrong[0]!r} is never a value of "
                    f"a {kind} change (its values: {', '.join(sorted(allowed))})")


@cache
def own_rules(directory: str | None = None) -> tuple[Rule, ...]:
    book = _book(Path(directory) if directory else rules_dir())
    if book.own is None:
        rules = tuple(_own_rule(raw, family) for family, data in book.tables
                      for raw in data.get("rule", []) if "raised_by" in raw)
        matrix = {rule.code for rule in load_rules(directory)}
        codes = [rule.code for rule in rules]
        duplicated = sorted({c for c in codes if codes.count(c) > 1 or c in matrix})
        if duplicated:
            raise ValueError(f"rule codes used twice: {duplicated}")
        book.own = rules
        book.save()
    return book.own


def _own_rule(raw: dict[str, Any], family: str) -> Rule:
    code = raw["code"]
    if raw["verdict"] not in VERDICTS:
        raise ValueError(f"{code}: unknown verdict {raw['verdict']!r}")
    unknown = sorted(set(raw) - {"code", "name", "raised_by", "verdict", "message", "why",
                                 "fix", "docs", "overrides", "variants", "examples"})
    if unknown:
        raise ValueError(f"{code}: unknown keys {unknown}")
    overrides = tuple((key, tuple(value) if isinstance(value, list) else (str(value),))
                      for key, value in sorted(raw.get("overrides", {}).items()))
    if overrides and {key for key, _ in overrides} != {"change", "verdict"}:
        raise ValueError(f"{code}: `overrides` names a change kind and verdicts")
    for key, values in overrides:
        known = CHANGE_KINDS if key == "change" else set(VERDICTS)
        if set(values) - known:
            raise ValueError(f"{code}: overrides {key} {sorted(set(values) - known)}: unknown")
    examples = tuple(Example(**example) for example in raw.get("examples", []))
    return Rule(code=code, name=raw["name"], change=(), verdict=raw["verdict"],
                message=raw["message"], why=" ".join(raw["why"].split()),
                fix=" ".join(raw.get("fix", "").split()), docs=raw.get("docs", ""), spark="",
                when=(), examples=examples, family=family, raised_by=raw["raised_by"],
                overrides=overrides, variants=tuple(sorted(raw.get("variants", {}).items())))


def all_rules() -> tuple[Rule, ...]:
    """Every code streamlint can emit: the matrix's rules, then its own."""
    return load_rules() + own_rules()


def find_rule(code: str) -> Rule | None:
    """A rule by code (any case) or by name."""
    for rule in all_rules():
        if rule.code == code.upper() or rule.name == code:
            return rule
    return None
