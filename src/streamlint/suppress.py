"""`# streamlint: ignore[CODE] reason`: a deliberate change recorded next to the code.

Like ruff's `noqa` with explicit codes: the comment names the codes it silences and says why,
on the line the finding points at in the new file. A comment without a code or a reason
silences nothing and is reported; so is one that silences nothing (it outlived its change).
"""

from __future__ import annotations

import functools
import io
import re
import tokenize

from streamlint.model import Loc
from streamlint.records import record
from streamlint.rules import Finding

MARK = re.compile(r"#\s*streamlint\s*:\s*ignore\b(?:\[([^\]]*)\])?[ \t:,-]*(.*)$")
DOCS = ""  # no upstream page: the reports point at docs/rules/SL01.md and `explain`


@record
class Suppression:
    line: int
    column: int
    codes: tuple[str, ...]
    reason: str


def find_suppressions(text: str, path: str) -> tuple[list[Suppression], list[Finding]]:
    """The well-formed comments, and a finding for each malformed one."""
    if "streamlint" not in text:
        return [], []
    if path.lower().endswith(".ipynb"):  # the comments are in the cells' JSON strings
        from streamlint.extract.notebook import code_lines

        text = code_lines(text)
    good: list[Suppression] = []
    bad: list[Finding] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return [], []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = MARK.search(token.string)
        if match is None:
            continue
        line, column = token.start
        codes = tuple(c.strip().upper() for c in (match.group(1) or "").split(",") if c.strip())
        reason = match.group(2).strip()
        if not codes or not reason:
            missing = "a rule code" if not codes else "a reason"
            bad.append(Finding(
                "SL02", "malformed-suppression", "review",
                f"this suppression silences nothing: it needs {missing}, as in "
                "`# streamlint: ignore[QY01] moving to the v2 checkpoint on purpose`",
                "Name the codes the change is meant to raise and say why.", DOCS, "-",
                None, Loc(path, line, column)))
            continue
        unknown = [code for code in codes if code not in _known_codes()]
        if unknown:  # a typo would otherwise read as "silences nothing on this line"
            bad.append(Finding(
                "SL02", "malformed-suppression", "review",
                f"`ignore[{', '.join(unknown)}]`: no streamlint rule has "
                f"{'this code' if len(unknown) == 1 else 'these codes'} "
                "(`streamlint rules` lists them)",
                "Correct the code to the one the finding reports.", DOCS, "-",
                None, Loc(path, line, column)))
            codes = tuple(code for code in codes if code not in unknown)
            if not codes:
                continue
        good.append(Suppression(line, column, codes, reason))
    return good, bad


@functools.cache
def _known_codes() -> frozenset[str]:
    from streamlint.config import OWN_CODES
    from streamlint.rules import load_rules

    return frozenset(rule.code for rule in load_rules()) | frozenset(OWN_CODES)


def apply_suppressions(findings: tuple[Finding, ...], text: str, path: str
                       ) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(findings kept, plus one per unused or malformed comment; findings silenced)."""
    comments, malformed = find_suppressions(text, path)
    if not comments:
        return findings + tuple(malformed), ()
    kept: list[Finding] = []
    silenced: list[Finding] = []
    used: set[tuple[int, str]] = set()
    for finding in findings:
        where = finding.new
        hit = None
        if where is not None:
            hit = next((s for s in comments if s.line == where.line
                        and finding.code in s.codes), None)
        if hit is None:
            kept.append(finding)
        else:
            used.add((hit.line, finding.code))
            silenced.append(finding)
    for comment in comments:
        for code in comment.codes:
            if (comment.line, code) not in used:
                kept.append(Finding(
                    "SL01", "unused-suppression", "review",
                    f"`ignore[{code}]` silences nothing on this line: the change it recorded "
                    "is gone, or the finding points at another line",
                    "Remove the comment, or move it to the line the finding points at.", DOCS,
                    "-", None, Loc(path, comment.line, comment.column)))
    return tuple(kept) + tuple(malformed), tuple(silenced)
