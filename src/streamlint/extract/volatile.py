"""A checkpoint path built from the clock or a random id: a new checkpoint on every run.

Read from the code the extractor keeps for a value it could not know (`model.Unknown.text`,
a partly-known string's parts): the call that makes the path differ is recorded on the sink
(`Sink.volatile`), so the diff reads a field, never this text.
"""

from __future__ import annotations

import re

from streamlint.model import Template, Unknown

# Calls whose value differs on every run: the clock, random ids.
_VOLATILE_RE = re.compile(
    r"(?<![\w])(?:[\w.]*\b(?:datetime|date|pendulum|arrow|Timestamp)\s*\.\s*"
    r"(?:now|utcnow|today)"
    r"|\btime\s*\.\s*(?:time|time_ns|strftime|localtime|gmtime|ctime)"
    r"|(?:\buuid\s*\.\s*)?\buuid[14]"
    r"|\brandom\s*\.\s*\w+|\bsecrets\s*\.\s*token_\w+)\s*\(")


def _code(value: object) -> str | None:
    if isinstance(value, Unknown):
        return value.text
    if isinstance(value, Template):
        return str(value)
    return None


def volatile_call(value: object) -> str | None:
    """The call (`datetime.now()`, `uuid.uuid4()`) that makes a checkpoint path differ on
    every run, as written; None for a path that stays put or is unknown for other reasons."""
    text = _code(value)
    if text is None:
        return None
    match = _VOLATILE_RE.search(text)
    if match is None:
        return None
    depth, end = 0, match.end() - 1
    for end in range(match.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            break
    return re.sub(r"\s+", "", match.group(0)[:-1]) + text[match.end() - 1:end + 1]
