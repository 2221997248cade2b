"""The restart-compatibility matrix, loaded from `rules/*.toml`, and how a change meets it.

A rule names the change kind it judges, optional facts it needs (`when`), the Spark versions
it holds for, and its verdict. The first matching rule wins, most specific first.
"""

from __future__ import annotations

import binascii
import json
import os
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from streamlint.core import CHANGE_KINDS, Change, Code, facts_of
from streamlint.core import DEFAULT_SPARK_VERSION as DEFAULT_SPARK_VERSION
from streamlint.errors import UsageError
from streamlint.model import Loc, show
from streamlint.records import record

VERDICTS = ("compatible", "review", "incompatible")


@record
class Example:
    """An old/new pair of job snippets and the verdict their diff must get."""

    name: str
    verdict: str
    old: str
    new: str
    spark: str | None = None
    fires: bool = True  # False: an example where the rule must not fire
    # Where the rule fires: a distinctive part of its message, and the line of the finding in
    # the new snippet (in the old one for a finding with no new location).
    message: str | None = None
    line: int | None = None


@record
class Rule:
    """One row of the restart-compatibility matrix."""

    code: str
    name: str
    change: tuple[str, ...]
    verdict: str
    message: str
    why: str
    fix: str
    docs: str
    spark: str
    when: tuple[tuple[str, tuple[str, ...]], ...]
    examples: tuple[Example, ...]
    family: str

    def applies(self, change: Change, version: tuple[int, ...]) -> bool:
        if change.kind not in self.change or not version_in(version, self.spark):
            return False
        return all(change.facts.get(key) in values for key, values in self.when)


@record
class Finding:
    """A judged change: what the reports print."""

    code: str
    name: str
    verdict: str
    message: str
    fix: str
    docs: str
    query: str
    old: Loc | None
    new: Loc | None
    # For an incompatible finding: the command to run next, then the deliberate reset as a
    # patch (`streamlint.remedy`); empty otherwise.
    next: str = ""


def parse_version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.strip().split("."))
    except ValueError:
        raise UsageError(f"not a Spark version: {text!r} (expected e.g. 3.5 or 4.2.0)") from None


def version_in(version: tuple[int, ...], spec: str) -> bool:
    """`>=3.5,<4.2` style ranges; versions compare on the parts both sides give."""
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        op = clause.rstrip("0123456789.")
        bound = parse_version(clause[len(op):])
        mine = version[: len(bound)] + (0,) * max(0, len(bound) - len(version))
        ok = {">=": mine >= bound, ">": mine > bound, "<=": mine <= bound, "<": mine < bound,
              "==": mine == bound, "": mine == bound}.get(op)
        if not ok:
            return False
    return True


def rules_dir() -> Path:
    packaged = Path(__file__).with_name("_rules")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "rules"


@cache
def load_rules(directory: str | None = None) -> tuple[Rule, ...]:
    root = Path(directory) if directory else rules_dir()
    rules: list[Rule] = []
    for family, data in _read_tables(root):
        for raw in data.get("rule", []):
            rules.append(_rule(raw, family))
    codes = [r.code for r in rules]
    duplicated = {c for c in codes if codes.count(c) > 1}
    if duplicated:
        raise ValueError(f"rule codes used twice: {sorted(duplicated)}")
    # Most specific first: rules with more `when` facts win, then rules bound to a Spark range.
    return tuple(sorted(rules, key=lambda r: (-len(r.when), 0 if r.spark else 1)))


def _read_tables(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """The parsed rule files, from a JSON copy in the user's cache when the files are unchanged.

    Parsing the TOML costs about 10 ms a run, a tenth of the time the whole check may take;
    the cache is keyed by the files' paths, sizes and modification times, and any failure
    to read or write it just means parsing again.
    """
    paths = sorted(root.glob("*.toml"))
    stamp = repr([(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in paths])
    cache = _cache_dir() / f"rules-{binascii.crc32(stamp.encode()):08x}.json"
    if os.environ.get("STREAMLINT_NO_CACHE") is None:
        try:
            cached = json.loads(cache.read_text(encoding="utf-8"))
            if cached.get("stamp") == stamp:
                return [(family, data) for family, data in cached["tables"]]
        except (OSError, ValueError, KeyError, AttributeError):
            pass
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    tables = []
    for path in paths:
        with path.open("rb") as handle:
            tables.append((path.stem, tomllib.load(handle)))
    if os.environ.get("STREAMLINT_NO_CACHE") is None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            temporary = cache.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps({"stamp": stamp, "tables": tables}), encoding="utf-8")
            os.replace(temporary, cache)
        except OSError:
            pass
    return tables


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "streamlint"


def _rule(raw: dict[str, Any], family: str) -> Rule:
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
    for clause in filter(None, (c.strip() for c in raw.get("spark", "").split(","))):
        if not re.fullmatch(r"(>=|<=|==|>|<)\d+(\.\d+)*", clause):
            raise ValueError(f"{raw['code']}: cannot read the Spark range {raw['spark']!r}")
    examples = tuple(Example(**example) for example in raw.get("examples", []))
    return Rule(
        code=raw["code"], name=raw["name"], verdict=raw["verdict"],
        change=tuple(raw["change"]) if isinstance(raw["change"], list) else (raw["change"],),
        message=raw["message"], why=raw["why"].strip(), fix=raw.get("fix", "").strip(),
        docs=raw["docs"], spark=raw.get("spark", ""), when=when, examples=examples,
        family=family,
    )


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


def rule_for(change: Change, version: tuple[int, ...]) -> Rule | None:
    for rule in load_rules():
        if rule.applies(change, version):
            return rule
    return None


def judge(change: Change, version: tuple[int, ...]) -> Finding:
    rule = rule_for(change, version)
    if rule is None:  # every change kind has a rule (tested); this is the safe fallback
        return Finding("SL000", "unclassified-change", "review",
                       f"{change.subject} changed from {show(change.old)} to {show(change.new)}",
                       "", "", change.query, change.old_loc, change.new_loc)
    message = _natural(rule.message, change).format(
        subject=change.subject, old=_render(change.old), new=_render(change.new),
        query=change.query, **change.facts,
    )
    message = _NOTHING.sub("", message)
    fix = rule.fix
    if "pipeline" in change.facts:  # a pipeline's flow: the remedy is a full refresh
        fix = pipeline_fix(fix, rule.verdict, rule.family, change.facts)
    return Finding(rule.code, rule.name, rule.verdict, message, fix, rule.docs,
                   change.query, change.old_loc, change.new_loc)


# "changed from nothing to X" reads as "added: X", "changed from X to nothing" as "removed".
_FROM_TO = re.compile(r" changed from \(?\{old\}\)? to \(?\{new\}\)?")
_NOTHING = re.compile(r"removed: nothing; |; added: nothing|old: nothing; |; new: nothing")


def _natural(template: str, change: Change) -> str:
    if change.old is None and change.new is not None:
        return _FROM_TO.sub(" added: {new}", template, count=1)
    if change.new is None and change.old is not None:
        return _FROM_TO.sub(" removed (it was {old})", template, count=1)
    return template


def _render(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, Code):
        return str(value)
    if isinstance(value, tuple):
        return ", ".join(_render(v) for v in value) or "nothing"
    return show(value)


def worst(verdicts: list[str]) -> str:
    return max(verdicts, key=VERDICTS.index, default="compatible")


# -- pipelines: their remedy -----------------------------------------------------------------


@cache
def _remedies() -> dict[str, str]:
    for family, data in _read_tables(rules_dir()):
        if family == "pipelines":
            return {k: " ".join(str(v).split()) for k, v in data.get("full_refresh", {}).items()}
    return {}


def pipeline_fix(fix: str, verdict: str, family: str, facts: dict[str, str]) -> str:
    """The fix for a change to a pipeline flow: a pipeline has no checkpoint to move, so an
    incompatible change is fixed by keeping the old shape or fully refreshing the table."""
    remedy = _remedies().get(facts.get("pipeline", "sdp"), "")
    if family != "pipelines":
        if verdict != "incompatible":
            return fix
        fix = "Keep the old shape, or {full_refresh}"
    table = facts.get("pipeline_table", "TABLE")
    return fix.replace("{full_refresh}", remedy).replace("{table}", table).replace(
        "{old_table}", facts.get("old_table", "the old table"))
