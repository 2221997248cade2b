"""What the formats say alike: plurals, where a finding points, which query it is about,
the Spark each report was judged for."""

from __future__ import annotations

import os
from typing import Any

from streamlint.diff import Report
from streamlint.model import Loc
from streamlint.model.labels import pair_labels
from streamlint.rulebook.docs import page
from streamlint.rulebook.matrix import worst
from streamlint.rulebook.profiles import shown_profile

LEVEL = {"incompatible": "error", "review": "warning", "compatible": "note"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 finding`, `2 findings`, `1 query`, `3 queries`."""
    if n == 1:
        return f"1 {word}"
    if many is None:
        many = word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else (
            word + "es" if word.endswith(("s", "x", "ch", "sh")) else word + "s")
    return f"{n} {many}"


def see(finding: object) -> str:
    """Where a finding's rule is explained: the command, its page, the upstream docs."""
    code = str(getattr(finding, "code", ""))
    docs = str(getattr(finding, "docs", "") or "")
    return f"`streamlint explain {code}`, {page(code)}" + (f", {docs}" if docs else "")


def belongs(finding: object, label: str) -> bool:
    """Whether a finding is about the query with this label (a finding shared by several
    queries lists them all: a label may itself hold a comma)."""
    query = str(getattr(finding, "query", ""))
    return query == label or label in getattr(finding, "queries", ())


def query_verdicts(report: Report) -> list[str]:
    """Each compared query's verdict: the worst of its findings."""
    return [worst([f.verdict for f in report.findings if belongs(f, label)])
            for label in pair_labels(report.pairs)]


def outside_queries(report: Report) -> list[Any]:
    """Findings about no compared query (streaming code read as no query, a file's own
    finding): the summary counts them apart, so that its query counts agree with the
    verdict."""
    labels = pair_labels(report.pairs)
    return [f for f in report.findings if not any(belongs(f, label) for label in labels)]


def no_query(report: Report) -> str | None:
    """What to say of a file pair with no streaming query and nothing unread, or None.

    A pipeline of materialized views was read (its tables were found): the report says so,
    so that "no streaming query" is not taken for "nothing was understood"."""
    if (report.old.queries or report.new.queries or report.old.unseen or report.new.unseen
            or report.old.syntax_error or report.new.syntax_error):
        return None  # a version that does not parse was not read: its finding says so
    paths = (report.old.path if report.old.path == report.new.path
             else f"{report.old.path} or {report.new.path}")
    views = tuple(dict.fromkeys(report.old.batch_datasets + report.new.batch_datasets))
    if not views:
        return f"no streaming query found in {paths}"
    shown = ", ".join(f"`{name}`" for name in views[:8]) + (
        f" and {len(views) - 8} more" if len(views) > 8 else "")
    return (f"no streaming query in {paths}: the pipeline's "
            f"{plural(len(views), 'dataset')} ({shown}) "
            f"{'is a materialized view' if len(views) == 1 else 'are materialized views'}, "
            "recomputed on every update with no checkpoint to restart from")


def judged_for(reports: list[Report]) -> list[str]:
    """`Spark 4.3 (pyspark==4.3.0 in requirements.txt)`, `Databricks Runtime 17.3 (Spark 4.0)
    (--spark-version dbr-17.3)` for each profile the reports were judged for, with the files
    it holds for when they differ (`check` of several projects)."""
    used: dict[tuple[str, str, str, str, str], list[str]] = {}
    for report in reports:
        used.setdefault((report.spark_version, report.databricks, report.spark_source,
                         report.base_spark_version, report.base_spark_source),
                        []).append(report.new.path)
    return [shown_profile(version, databricks)
            + (f" ({source}{', the head' if base else ''})" if source else "")
            + (f"; the base pins Spark {base} ({base_source})" if base else "")
            + (f" for {', '.join(paths)}" if len(used) > 1 else "")
            for (version, databricks, source, base, base_source), paths in used.items()]


def repo_path(path: str, root: str | None) -> str:
    """A path as the pull request shows it: relative to the repository root, with `/`."""
    if root is not None:
        path = os.path.relpath(os.path.abspath(path), root)
    return path.replace(os.sep, "/")


def where(finding: object, report: Report, root: str | None) -> tuple[str, int, int]:
    """(path, line, 1-based column) in the new file; a finding about a query that is gone
    points where its code was taken out (streamlint/policy/at_change.py), else at the top of
    the file that lost it (`gone_from` then says where it was)."""
    loc: Loc | None = getattr(finding, "new", None)
    if loc is None:
        return repo_path(report.new.path, root), 1, 1
    return repo_path(loc.path, root), loc.line, loc.column + 1


def gone_from(finding: object, root: str | None) -> str:
    """For a finding with no place in the new version: where it was in the old one, said
    plainly; "" otherwise."""
    old: Loc | None = getattr(finding, "old", None)
    if getattr(finding, "new", None) is not None or old is None:
        return ""
    return (f"not in the new version: it was at `{repo_path(old.path, root)}:{old.line}` in "
            "the old one")
