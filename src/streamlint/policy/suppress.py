"""`# streamlint: ignore[CODE] reason`: a deliberate change recorded next to the code.

Like ruff's `noqa` with explicit codes: the comment names the codes it accepts and says why.
It counts on any line of the statement the finding points at in the new file (the whole
`groupBy(...).agg(...)` chain, not only the line of `groupBy`). A comment without a code or a
reason accepts nothing and is reported (SL02).

A comment is about the change that added it. One the base version already has (the same
codes and reason) accepted an earlier change: it accepts nothing new, and it is never
reported as unused, so a merged comment does not complain in every later pull request. A
comment this change adds that accepts nothing is reported (SL01).

A comment in a repository module the job imports accepts the findings pointing at its
statement there, for every job importing it; it is never "unused" for one job (another job
importing the module may be the one it is for).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize

from streamlint.extract.ipynb_lines import code_lines
from streamlint.extract.text import python_tree
from streamlint.model import Loc
from streamlint.model.records import record
from streamlint.rulebook.book import all_rules
from streamlint.rulebook.matrix import Finding, own_finding

MARK = re.compile(r"#\s*streamlint\s*:\s*ignore\b(?:\[([^\]]*)\])?[ \t:,-]*(.*)$")


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
        text = _code_lines(text)
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
            bad.append(own_finding("SL02", "-", None, Loc(path, line, column),
                                   missing=missing))
            continue
        unknown = [code for code in codes if code not in known_codes()]
        if unknown:  # a typo would otherwise read as "silences nothing on this line"
            bad.append(own_finding(
                "SL02", "-", None, Loc(path, line, column), "unknown-code",
                codes=", ".join(unknown),
                which="this code" if len(unknown) == 1 else "these codes"))
            codes = tuple(code for code in codes if code not in unknown)
            if not codes:
                continue
        good.append(Suppression(line, column, codes, reason))
    return good, bad


@functools.cache
def known_codes() -> frozenset[str]:
    return frozenset(rule.code for rule in all_rules())


def statement_lines(text: str) -> list[tuple[int, int]]:
    """The line spans of the file's statements, innermost ones only for compound statements
    (their header is a span of its own). Empty when the text does not parse."""
    tree = python_tree(text)
    if not isinstance(tree, ast.Module):
        return []
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(node.lineno, body[0].lineno - 1)  # the header: `with (...):`, `def`
        spans.append((node.lineno, end))
    return spans


def covered_lines(line: int, spans: list[tuple[int, int]]) -> range:
    """The lines of the innermost statement holding `line` (just `line` outside any)."""
    holding = [span for span in spans if span[0] <= line <= span[1]]
    if not holding:
        return range(line, line + 1)
    start, end = min(holding, key=lambda span: span[1] - span[0])
    return range(start, end + 1)


def _key(comment: Suppression, code: str) -> tuple[str, str]:
    return code, " ".join(comment.reason.split())


Helper = tuple[str, str, str]  # a module followed: (root-relative path, shown path, text)


def apply_suppressions(findings: tuple[Finding, ...], text: str, path: str,
                       base_text: str | None = None, helpers: tuple[Helper, ...] = (),
                       base_helpers: tuple[Helper, ...] = ()
                       ) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(findings kept, plus one per unused or malformed comment; findings silenced).

    `base_text` is the version the change starts from: its comments are inherited, they
    accept nothing new and are never unused. A comment in a repository module the job
    imports (`helpers`, with `base_helpers` the base version's) accepts the findings that
    point at its statement there; one that accepts nothing for this job is not reported, as
    another job importing the module may be the one it is for, and a malformed one only where
    a finding points at its statement.
    """
    kept, silenced = _apply_file(findings, text, path, base_text, job=True)
    base = {relpath: old for relpath, _, old in base_helpers}
    for relpath, shown, helper_text in helpers:
        if shown == path:
            continue
        kept, more = _apply_file(kept, helper_text, shown, base.get(relpath), job=False)
        silenced = (*silenced, *more)
    return kept, silenced


def _apply_file(findings: tuple[Finding, ...], text: str, path: str, base_text: str | None,
                job: bool) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """The comments of one file applied to the findings that point into it."""
    comments, malformed = find_suppressions(text, path)
    if not comments and (job or not malformed):
        return findings + tuple(malformed), ()
    inherited: set[tuple[str, str]] = set()
    if base_text:
        base_path = path if not path.lower().endswith(".ipynb") else "base.ipynb"
        inherited = {_key(c, code) for c in find_suppressions(base_text, base_path)[0]
                     for code in c.codes}
    source = text
    if path.lower().endswith(".ipynb"):
        source = _code_lines(text)
    spans = statement_lines(source)
    kept: list[Finding] = []
    silenced: list[Finding] = []
    used: set[tuple[int, str]] = set()
    pointed: set[int] = set()  # the lines of the statements findings point at in this file
    for finding in findings:
        hit = None
        # At the change it points at, or where the query uses it (streamlint/policy/at_change.py).
        for where in (finding.new, *finding.related):
            if where is None or where.path != path or hit is not None:
                continue
            lines = covered_lines(where.line, spans)
            pointed.update(lines)
            hit = next((s for s in comments if s.line in lines and finding.code in s.codes
                        and _key(s, finding.code) not in inherited), None)
        if hit is None:
            kept.append(finding)
        else:
            used.add((hit.line, finding.code))
            silenced.append(finding)
    if not job:
        return (*kept, *(f for f in malformed if f.new is not None and f.new.line in pointed)), \
            tuple(silenced)
    for comment in comments:
        for code in comment.codes:
            if (comment.line, code) in used or _key(comment, code) in inherited:
                continue
            kept.append(own_finding("SL01", "-", None, Loc(path, comment.line, comment.column),
                                    code=code,
                                    elsewhere=_elsewhere(code, findings, comment, path)))
    return tuple(kept) + tuple(malformed), tuple(silenced)


def _elsewhere(code: str, findings: tuple[Finding, ...], comment: Suppression,
               path: str) -> str:
    """Where the findings of that code point, so the comment can be moved there."""
    lines = sorted({f.new.line for f in findings if f.code == code and f.new is not None
                    and f.new.path == path and f.new.line != comment.line})
    if not lines:
        return "the change it recorded is gone, or the finding has another code"
    where = ", ".join(str(n) for n in lines[:3])
    noun = "line" if len(lines) == 1 else "lines"
    return f"{code} points at {noun} {where}{', ...' if len(lines) > 3 else ''}"


def _code_lines(notebook: str) -> str:
    """A notebook's code, each line where the JSON has it."""

    return code_lines(notebook)
