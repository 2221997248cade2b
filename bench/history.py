"""Measure streamlint on the history corpus: real commits of public streaming jobs.

    python bench/history.py [--json PATH] [--only ID-PART] [--jobs N] [--no-self] [--src DIR]

Each pair (tests/history/PAIRS.toml) is judged as a user's CI judges it: `streamlint diff
--format json OLD NEW` in a subprocess, OLD and NEW being the job file inside the whole
repository tree at the parent and at the commit (`python bench/history_fetch.py` rebuilds
them). The verdict of each pair was decided from Spark's and Databricks' documentation before
streamlint ran. Prints the confusion matrix, the harmless commits that got any finding above
note (review and incompatible separately), the critical misses (a commit that breaks the restart
read compatible), time per pair, and, unless --no-self, the findings above note when each
job file is diffed against itself.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import history_corpus as hc  # noqa: E402

GOT = (*hc.VERDICTS, "error")


SRC = hc.ROOT / "src"


def run_diff(old: Path, new: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "streamlint", "diff", "--format", "json", "--exit-zero",
         str(old), str(new)], capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    row: dict = {"seconds": round(seconds, 3), "got": "error", "findings": [], "error": None}
    if done.returncode != 0:
        row["error"] = (done.stderr.strip().splitlines() or ["(no message)"])[-1][:300]
        return row
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        row["error"] = "not JSON: " + done.stdout[:200]
        return row
    row["got"] = report["verdict"]
    row["findings"] = [f"{f['verdict']}:{f['code']}: {f['message'][:240]}"
                       for f in report["findings"]]
    return row


def measure(pair: dict, self_diff: bool) -> dict:
    row = {"id": pair["id"], "repo": pair["repo"], "expected": pair["expected"],
           "change": pair["change"]}
    old, new = hc.job(pair, "old"), hc.job(pair, "new")
    row.update(run_diff(old, new))
    if self_diff:
        again = run_diff(new, new)
        row["self_above_note"] = [f for f in again["findings"] if not f.startswith("compatible")]
        row["self_error"] = again["error"]
    return row


def summarize(rows: list[dict]) -> dict:
    matrix = {e: {g: 0 for g in GOT} for e in hc.VERDICTS}
    for r in rows:
        matrix[r["expected"]][r["got"]] += 1
    harmless = [r for r in rows if r["expected"] == "compatible"]
    flagged_review = [r["id"] for r in harmless if r["got"] == "review"]
    flagged_incompatible = [r["id"] for r in harmless if r["got"] == "incompatible"]
    times = [r["seconds"] for r in rows]
    return {
        "pairs": len(rows),
        "repos": len({r["repo"] for r in rows}),
        "by_expected": dict(Counter(r["expected"] for r in rows)),
        "exact": sum(r["got"] == r["expected"] for r in rows),
        "confusion_matrix": matrix,
        "harmless": len(harmless),
        "harmless_flagged_review": flagged_review,
        "harmless_flagged_incompatible": flagged_incompatible,
        "critical_misses": [r["id"] for r in rows
                            if r["expected"] == "incompatible" and r["got"] == "compatible"],
        "under_rated": [r["id"] for r in rows if r["expected"] == "incompatible"
                        and r["got"] == "review"
                        or r["expected"] == "review" and r["got"] == "compatible"],
        "errors": [r["id"] for r in rows if r["error"]],
        "self_diff_above_note": [r["id"] for r in rows if r.get("self_above_note")],
        "seconds_per_pair": {"median": round(statistics.median(times), 2) if times else None,
                             "max": round(max(times), 2) if times else None,
                             "total": round(sum(times), 1)},
    }


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f} %)" if whole else "0/0"


def print_summary(s: dict, rows: list[dict]) -> None:
    print(f"history corpus: {s['pairs']} pairs from {s['repos']} repositories "
          f"{s['by_expected']}")
    print(f"exact: {pct(s['exact'], s['pairs'])}")
    print("confusion matrix (rows expected, columns got):")
    print("  " + " " * 14 + "".join(f"{g:>14}" for g in GOT))
    for e, row in s["confusion_matrix"].items():
        print(f"  {e:<14}" + "".join(f"{row[g]:>14}" for g in GOT))
    flagged = len(s["harmless_flagged_review"]) + len(s["harmless_flagged_incompatible"])
    print(f"harmless commits with a finding above note: {pct(flagged, s['harmless'])} "
          f"(review {len(s['harmless_flagged_review'])}, "
          f"incompatible {len(s['harmless_flagged_incompatible'])})")
    print(f"critical misses (breaking read compatible): {len(s['critical_misses'])}")
    for pid in s["critical_misses"]:
        print("  " + pid)
    print(f"under-rated: {len(s['under_rated'])}")
    print(f"errors: {len(s['errors'])}")
    for r in rows:
        if r["error"]:
            print(f"  {r['id']}: {r['error']}")
    print(f"self-diff with a finding above note: {len(s['self_diff_above_note'])}")
    t = s["seconds_per_pair"]
    print(f"seconds per pair (one `streamlint diff` process): median {t['median']}, "
          f"max {t['max']}, total {t['total']}")
    print("disagreements:")
    for r in rows:
        if r["got"] != r["expected"]:
            print(f"  {r['id']}: expected {r['expected']}, got {r['got']} ({r['change'][:90]})")
            for f in r["findings"]:
                if not f.startswith("compatible"):
                    print(f"      {f[:200]}")


def main(argv: list[str] | None = None) -> int:
    global SRC
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also save the summary and the rows")
    parser.add_argument("--only", metavar="TEXT", help="only the pairs whose id contains TEXT")
    parser.add_argument("--jobs", type=int, default=2, help="pairs judged at once (default 2)")
    parser.add_argument("--no-self", action="store_true", help="skip the self-diffs")
    parser.add_argument("--src", type=Path, default=SRC,
                        help="the streamlint source folder to measure (default: this checkout's; "
                             "another checkout's src/ measures an older commit)")
    args = parser.parse_args(argv)
    SRC = args.src.resolve()
    pairs = [p for p in hc.load_pairs() if not args.only or args.only in p["id"]]
    absent = [p["id"] for p in pairs if not (hc.job(p, "old").is_file()
                                             and hc.job(p, "new").is_file())]
    if absent:
        print(f"{len(absent)} pairs are not materialised (python bench/history_fetch.py): "
              + ", ".join(absent[:5]), file=sys.stderr)
        return 2
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(lambda p: measure(p, not args.no_self), pairs))
    summary = summarize(rows)
    print_summary(summary, rows)
    if args.json:
        # Codes, not messages: a message may quote the job's code, which is not ours to keep.
        kept = [{"id": r["id"], "expected": r["expected"], "got": r["got"],
                 "codes": sorted({f.split(": ")[0] for f in r["findings"]}),
                 "self_codes": sorted({f.split(": ")[0] for f in r.get("self_above_note", [])}),
                 "seconds": r["seconds"], "error": bool(r["error"])} for r in rows]
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": kept}, indent=1,
                                              ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
