"""`.streamlint-accept.toml`: deliberate changes accepted in a reviewed file.

    [[accept]]
    code = "AG04"                       # the finding's code
    query = "revenue_per_customer"      # its query (queryName or label), or:
    checkpoint = "s3://lake/chk/orders" # the checkpointLocation of its query
    reason = "10-minute windows; new checkpoint from the old offsets (OPS-77)"
    expires = 2026-12-31                # optional: after this day it accepts nothing

The file sits at the repository root. In git mode an entry accepts only findings of the pull
request that adds it: entries the base already has accepted earlier changes, accept nothing
new and are never reported as unused (SL03). An expired entry accepts nothing and is
reported (SL04). An unknown key is an error that names the file and the key.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamlint.model import Loc, Query
from streamlint.model.errors import UsageError
from streamlint.model.identity import named, writes_checkpoint
from streamlint.model.labels import pair_labels
from streamlint.model.records import record, replace
from streamlint.policy.suppress import known_codes
from streamlint.report.shared import belongs
from streamlint.rulebook.matrix import Finding, own_finding

if TYPE_CHECKING:
    import datetime

FILE = ".streamlint-accept.toml"
KEYS = {"code", "query", "checkpoint", "reason", "expires"}


@record
class Acceptance:
    code: str
    query: str | None
    checkpoint: str | None
    reason: str
    expires: datetime.date | None
    path: str
    line: int
    inherited: bool = False  # in the base already: accepts nothing new (git mode)

    @property
    def what(self) -> str:
        target = f"query {self.query!r}" if self.query else f"checkpoint {self.checkpoint!r}"
        return f"{self.code} for {target}"

    def expired(self, today: datetime.date | None = None) -> bool:
        import datetime

        return self.expires is not None and self.expires < (today or datetime.date.today())

    @property
    def key(self) -> tuple[str, str | None, str | None, str]:
        return self.code, self.query, self.checkpoint, " ".join(self.reason.split())


def parse(text: str, path: str) -> tuple[Acceptance, ...]:
    """The entries of an acceptance file; a malformed one is a UsageError naming it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{path}: not valid TOML: {err}") from None
    for key in data:
        if key != "accept":
            raise UsageError(f"{path}: unknown key `{key}` (entries are [[accept]] tables)")
    entries = data.get("accept", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise UsageError(f"{path}: `accept` must be an array of tables ([[accept]])")
    headers = [n for n, line in enumerate(text.splitlines(), 1)
               if re.match(r"\s*\[\[\s*accept\s*\]\]", line)]
    return tuple(_entry(raw, path, headers[n] if n < len(headers) else 1, n)
                 for n, raw in enumerate(entries))


def _entry(raw: dict[str, Any], path: str, line: int, n: int) -> Acceptance:
    where = f"{path}:{line}: accept[{n}]"
    for key in raw:
        if key not in KEYS:
            raise UsageError(f"{where}: unknown key `{key}` (known: {', '.join(sorted(KEYS))})")
    for key in ("code", "query", "checkpoint", "reason"):
        if key in raw and not isinstance(raw[key], str):
            raise UsageError(f"{where}: `{key}` must be a string")
    if not raw.get("code") or not str(raw.get("reason", "")).strip():
        raise UsageError(f"{where}: `code` and `reason` are required")
    if ("query" in raw) == ("checkpoint" in raw):
        raise UsageError(f"{where}: give `query` or `checkpoint` (one of them)")

    code = raw["code"].strip().upper()
    if code not in known_codes():
        raise UsageError(f"{where}: `code`: {raw['code']!r} is no streamlint code "
                         "(`streamlint rules` lists them)")
    return Acceptance(code, raw.get("query"), raw.get("checkpoint"), raw["reason"].strip(),
                      _date(raw.get("expires"), where), path, line)


def _date(value: Any, where: str) -> datetime.date | None:
    import datetime

    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            pass
    raise UsageError(f"{where}: `expires` must be a date such as 2026-12-31")


def find(start: Path) -> Path | None:
    """The nearest acceptance file at or above a folder."""
    for folder in [start, *start.parents]:
        if (folder / FILE).is_file():
            return folder / FILE
    return None


def load(start: Path) -> tuple[Acceptance, ...]:
    path = find(start.resolve())
    if path is None:
        return ()
    return parse(path.read_text(encoding="utf-8"), str(path))


def in_effect(head: tuple[Acceptance, ...], base: tuple[Acceptance, ...]
              ) -> tuple[Acceptance, ...]:
    """The head's entries, those the base already has marked inherited."""
    old = {entry.key for entry in base}
    return tuple(replace(e, inherited=e.key in old) for e in head)


def _queries(report: Any, finding: Finding) -> list[Query]:
    """The queries, of either version, a finding is about."""
    return [q for pair, label in zip(report.pairs, pair_labels(report.pairs), strict=True)
            if belongs(finding, label) for q in pair if q is not None]


def matches(entry: Acceptance, finding: Finding, report: Any) -> bool:
    """Whether the entry accepts the finding: its code, and a query it is about, named by
    its label or its name (`query`), or by its checkpoint (model/identity.py)."""
    if entry.code != finding.code:
        return False
    queries = _queries(report, finding)
    if entry.query is not None:
        return entry.query in finding.labels or any(named(q, entry.query) for q in queries)
    return entry.checkpoint is not None and any(writes_checkpoint(q, entry.checkpoint)
                                                for q in queries)


def apply(findings: tuple[Finding, ...], report: Any, entries: tuple[Acceptance, ...],
          today: datetime.date | None = None) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(findings kept, plus SL04 for an expired entry that would accept one; accepted)."""
    kept: list[Finding] = []
    accepted: list[Finding] = []
    expired: dict[int, Acceptance] = {}
    for finding in findings:
        hits = [e for e in entries if not e.inherited and matches(e, finding, report)]
        live = [e for e in hits if not e.expired(today)]
        if live:
            accepted.append(finding)
            continue
        kept.append(finding)
        for entry in hits:
            expired[id(entry)] = entry
    for entry in expired.values():
        kept.append(expired_finding(entry))
    return tuple(kept), tuple(accepted)


def expired_finding(entry: Acceptance) -> Finding:
    return own_finding("SL04", "-", None, Loc(entry.path, entry.line, 0), what=entry.what,
                       expires=entry.expires)


def leftovers(entries: tuple[Acceptance, ...], reports: list[Any],
              today: datetime.date | None = None) -> list[str]:
    """Warnings: entries this change adds that accept nothing (SL03), and expired entries
    no finding ran into (SL04 is then no finding of any report)."""
    out: list[str] = []
    for entry in entries:
        used = any(matches(entry, f, r) for r in reports for f in (*r.findings, *r.suppressed)
                   if f.code == entry.code)
        if entry.expired(today) and not used:
            out.append(_warning(own_finding("SL04", "-", None, None, "unused", what=entry.what,
                                            expires=entry.expires), entry))
        elif not entry.inherited and not used:
            out.append(_warning(own_finding("SL03", "-", None, None, what=entry.what), entry))
    return out


def _warning(finding: Finding, entry: Acceptance) -> str:
    return f"{entry.path}:{entry.line}: {finding.code} {finding.name}: {finding.message}"
