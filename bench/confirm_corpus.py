"""Spark's outcome against the static verdict over the corpus (tests/corpus/*/old.py, new.py).

Usage: python bench/confirm_corpus.py [CASE ...] [--only SUBSTRING] [--json OUT.json]
Runs `--confirm` on every pair in one JVM and prints one line per pair (static verdict,
Spark's outcome per query, agree / disagree / not confirmed and why), then the counts.
Agreement: Spark refused or changed the results <=> static says incompatible; a static
"review" agrees with any Spark outcome that is not incompatible (a person must look anyway).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "corpus"
SPARK_VERSION = "4.3"


def classify(static: str, spark: list[str | None], problem: str | None) -> str:
    known = [v for v in spark if v is not None]
    if problem or not known:
        return "not confirmed"
    # A query Spark could not judge is not agreement, unless another query of the job already
    # fails it: the job's verdict is the stricter of its queries', and nothing is stricter.
    if len(known) < len(spark) and "incompatible" not in known:
        return "not confirmed (some queries)"
    spark_verdict = "incompatible" if "incompatible" in known else "compatible"
    if spark_verdict == "incompatible":
        return "agree" if static == "incompatible" else "disagree: Spark stricter"
    return "disagree: static stricter" if static == "incompatible" else "agree"


def why_not_confirmed(problem: str | None, outcomes: list[str], messages: list[str]) -> str:
    """The reason a pair is "not confirmed", in a few words, for the counts."""
    if problem:
        for marker, reason in (("no schema", "no schema"), ("still ran after", "timed out"),
                               ("before its queries started", "job fails before its queries"),
                               ("neither version started", "no query started as a script")):
            if marker in problem:
                return reason
        return "cannot run"
    if "fails-from-scratch" in outcomes:
        return "new job fails on Spark"
    if any("source changed" in m for m in messages):
        return "source changed"
    if "cannot-confirm" in outcomes:
        return "old job fails on Spark"
    return "timed out" if "timed-out" in outcomes else "other"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", nargs="*", help="case names (default: every case)")
    parser.add_argument("--only", default="")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    from streamlint.policy.config import load_config
    from streamlint.spark.confirm import confirm_files
    from streamlint.spark.report import sink_only, static_verdict
    from streamlint.spark.runtime import start_session
    from streamlint.workflow.files import diff_files

    session = start_session()
    rows = []
    counts: dict[str, int] = {}
    for case in sorted(d for d in CORPUS.iterdir() if (d / "old.py").is_file()):
        if args.only not in case.name or (args.cases and case.name not in args.cases):
            continue
        began = time.perf_counter()
        static = diff_files(str(case / "old.py"), str(case / "new.py"), SPARK_VERSION)
        tables = dict(load_config(case).tables)  # as `diff --confirm` finds them: from NEW's folder
        result = confirm_files(case / "old.py", case / "new.py", session, tables, timeout=60)
        outcomes = [q.outcome for q in result.queries]
        verdict = classify(static.verdict, [q.verdict for q in result.queries], result.problem)
        if verdict.startswith("disagree: static") and "removed" in outcomes and any(
                f.code == "QY01" for f in static.findings):
            verdict = "not confirmed (new checkpoint)"  # a new query: nothing to restart
        elif verdict.startswith("disagree: static") and all(
                sink_only(static, old, new) for old, new in static.pairs
                if static_verdict(static, old, new) == "incompatible"):
            verdict = "not confirmed (sink change)"
        if verdict == "not confirmed":
            messages = [q.message or "" for q in result.queries]
            verdict += f" ({why_not_confirmed(result.problem, outcomes, messages)})"
        counts[verdict] = counts.get(verdict, 0) + 1
        why = result.problem or "; ".join(
            f"{q.outcome}{' ' + q.error_class if q.error_class else ''}"
            + (f" ({q.message[:90]})" if q.message and not q.error_class else "")
            for q in result.queries)
        print(f"{case.name:45s} static={static.verdict:12s} {verdict:26s} {why}  "
              f"[{time.perf_counter() - began:.0f}s]", flush=True)
        rows.append({"case": case.name, "static": static.verdict, "spark": outcomes,
                     "classification": verdict, "detail": why})
    print("\n" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    session.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
