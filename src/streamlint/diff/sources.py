"""The streaming sources of two versions of a query compared: sources added, removed or
reordered, and for a pair of sources their format, what they read (identity options), their
rate limits and other options, their declared schema and their name.

Functions of the differ (`diff.compare._Differ`, bound there as its methods): each reports
through `self.add`, so the verdicts stay in the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamlint.diff.evolution import naming
from streamlint.diff.render import describe
from streamlint.diff.shapes import _align, _keys_of, _schema_change, _source_key
from streamlint.diff.usage import uses
from streamlint.model import Source, option
from streamlint.model.paths import same_path
from streamlint.rulebook.options import classify

if TYPE_CHECKING:
    from streamlint.diff.compare import _Differ


def sources(self: _Differ) -> None:
    old, new = self.old.sources, self.new.sources
    named = all(isinstance(s.name, str) for s in (*old, *new)) and bool(old and new)
    facts = {"named": "true" if named else "false"}
    if named:
        by_name = {s.name: s for s in old}
        pairs = [(by_name.get(s.name), s) for s in new]
        pairs += [(s, None) for s in old if s.name not in {n.name for n in new}]
    else:
        signature = [_source_key(s) for s in old]
        if len(old) == len(new) and signature != [_source_key(s) for s in new] and sorted(
                signature, key=repr) == sorted([_source_key(s) for s in new], key=repr):
            self.add("source.reordered", "the order of the sources",
                     tuple(describe(s) for s in old), tuple(describe(s) for s in new),
                     old[0].loc, new[0].loc, **facts)
            return
        pairs = _align(old, new, key=_source_key)
    for before, after in pairs:
        if before is None and after is not None:
            self.add("source.added", "a streaming source", None, describe(after), None,
                     after.loc, **facts)
        elif after is None and before is not None:
            self.add("source.removed", "a streaming source", describe(before), None,
                     before.loc, None, **facts)
        elif before is not None and after is not None:
            self.source_pair(before, after, facts)


def source_pair(self: _Differ, old: Source, new: Source, facts: dict[str, str]) -> None:
    if old.format != new.format:
        self.add("source.type", "the source format", old.format, new.format, old.loc,
                 new.loc, old_format=str(old.format), new_format=str(new.format), **facts)
        return
    fmt = str(new.format)
    changed = [(key, option(old.identity, key), option(new.identity, key))
               for key in _keys_of(old.identity, new.identity)]
    changed = [(key, a, b) for key, a, b in changed
               if a != b and not (key.lower() == "path" and same_path(a, b))]
    for key, a, b in changed:
        # One option changed points where it was given; several (`subscribe` replaced by
        # `subscribePattern`) are one change of what the source reads (merged by where they
        # point, `diff.merge_identity_changes`), at the source.
        one = len(changed) == 1
        self.add("source.identity", f"the {fmt} source option `{key}`", a, b,
                 old.at(key) if one else old.loc, new.at(key) if one else new.loc,
                 key=key.lower(), **facts)
    for key in _keys_of(old.rate_limits, new.rate_limits):
        a, b = option(old.rate_limits, key), option(new.rate_limits, key)
        if a != b:
            self.add("source.rate_limit", f"the rate limit `{key}`", a, b,
                     old.placed(key, new), new.placed(key, old))
    for key in _keys_of(old.options, new.options):
        a, b = option(old.options, key), option(new.options, key)
        if a != b:
            known = classify(fmt, key)
            cited = {"option_docs": known.docs} if known is not None and known.docs else {}
            self.add("source.option", f"the {fmt} source option `{key}`", a, b,
                     old.placed(key, new), new.placed(key, old), key=key.lower(),
                     option_class=known.name if known is not None else "unknown", **cited)
    if old.schema != new.schema:
        fields, columns = _schema_change(old.schema, new.schema, fmt)
        used = uses((self.old, self.new), columns) if fields != "other" else "unknown"
        self.add("source.schema", f"the declared schema of the {fmt} source", old.schema,
                 new.schema, old.schema_loc or old.loc, new.schema_loc or new.loc,
                 fields=fields, used=used)
    if old.name != new.name and facts.get("named") != "true":
        self.add("source.name", "the source name", old.name, new.name, old.loc, new.loc,
                 naming=naming(old.name, new.name))
