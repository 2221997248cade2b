"""Measure streamlint on the real-world corpus (tests/realworld): queries found against the
hand-counted ones (per file and per kind), findings when a file is diffed against itself, and
the confusion matrix of the edits' expected verdicts against the tool's.

    python bench/realworld.py [--json PATH] [--available]

The corpus's files are not in the repository (bench/realworld_corpus.py says why);
`python bench/realworld_fetch.py` materialises them first. A file diffed against itself is
compared in full (its text is marked changed, so nothing is skipped as "the same code").
An exception while reading a file counts as "error". `--check` exits 1 when a query is missed,
a file gets a finding against itself, or an incompatible edit is reported compatible.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import realworld_corpus as rw  # noqa: E402

from streamlint.diff import diff_jobs  # noqa: E402
from streamlint.model.records import replace  # noqa: E402

VERDICTS = (*rw.VERDICTS, "error")


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160]


def measure_files(manifest: list[dict]) -> list[dict]:
    rows = []
    for entry in manifest:
        path = rw.REALWORLD / entry["path"]
        row = {"path": entry["path"], "kind": entry["kind"], "expected": entry["queries"],
               "found": None, "self_findings": None, "error": None}
        try:
            job = rw.load_job(path)
            row["found"] = len(job.queries)
            if rw.is_entry(entry):
                again = rw.load_job(path)
                report = diff_jobs(job, replace(again, text=again.text + "\n"))
                row["self_findings"] = [f.code for f in report.findings]
        except Exception as exc:  # noqa: BLE001 - every failure is a measurement
            row["error"] = _error(exc)
        rows.append(row)
    return rows


def measure_edits(edits_to_run: list[dict]) -> list[dict]:
    rows = []
    for edit in edits_to_run:
        row = {"id": edit["id"], "file": edit["file"], "expected": edit["expected"],
               "got": "error", "codes": [], "error": None}
        with tempfile.TemporaryDirectory(prefix="realworld-edit-") as tmp:
            try:
                original, edited = rw.apply_edit(edit, Path(tmp))
                report = diff_jobs(rw.load_job(original), rw.load_job(edited))
                row["got"] = report.verdict
                row["codes"] = sorted({f.code for f in report.findings})
            except Exception as exc:  # noqa: BLE001
                row["error"] = _error(exc)
        rows.append(row)
    return rows


def summarize(files: list[dict], edits: list[dict], seconds: float) -> dict:
    entries = [f for f in files if f["kind"] != "module_helper"]
    per_kind: dict[str, dict[str, int]] = defaultdict(lambda: Counter())
    for f in files:
        k = per_kind[f["kind"]]
        k["files"] += 1
        k["queries_counted"] += f["expected"]
        k["queries_found"] += f["found"] or 0
        k["files_exact"] += int(f["found"] == f["expected"])
        k["errors"] += int(f["error"] is not None)
    matrix = {e: {g: 0 for g in VERDICTS} for e in rw.VERDICTS}
    for e in edits:
        matrix[e["expected"]][e["got"]] += 1
    misses: dict[str, list[str]] = defaultdict(list)
    for e in edits:
        if e["got"] != e["expected"]:
            misses[e["file"]].append(f"{e['id']}: expected {e['expected']}, got {e['got']}")
    return {
        "seconds": round(seconds, 1),
        "files": len(files),
        "repos": len({f["path"].split("/", 1)[0] for f in files}),
        "queries_counted": sum(f["expected"] for f in files),
        "queries_found": sum(f["found"] or 0 for f in files),
        "files_with_exact_count": sum(f["found"] == f["expected"] for f in files),
        "file_errors": [f"{f['path']}: {f['error']}" for f in files if f["error"]],
        "count_mismatches": [
            f"{f['path']} ({f['kind']}): counted {f['expected']}, found {f['found']}"
            for f in files if f["error"] is None and f["found"] != f["expected"]],
        "per_kind": {k: dict(v) for k, v in sorted(per_kind.items())},
        "self_diff_files_with_findings": [f"{f['path']}: {f['self_findings']}" for f in entries
                                          if f["self_findings"]],
        "edits": len(edits),
        "edits_by_expected": dict(Counter(e["expected"] for e in edits)),
        "edits_agreeing": sum(e["got"] == e["expected"] for e in edits),
        "confusion_matrix": matrix,
        "incompatible_reported_compatible": sum(
            e["expected"] == "incompatible" and e["got"] == "compatible" for e in edits),
        "edit_errors": [f"{e['id']}: {e['error']}" for e in edits if e["error"]],
        "misses_per_file": dict(sorted(misses.items())),
    }


def print_summary(s: dict) -> None:
    print(f"real-world corpus: {s['files']} files from {s['repos']} repositories "
          f"({s['seconds']} s)")
    print(f"queries: counted {s['queries_counted']}, found {s['queries_found']}; "
          f"files with the exact count: {s['files_with_exact_count']}/{s['files']}")
    print("per kind:               files  exact  counted  found  errors")
    for kind, k in s["per_kind"].items():
        print(f"  {kind:<20} {k.get('files', 0):6} {k.get('files_exact', 0):6} "
              f"{k.get('queries_counted', 0):8} {k.get('queries_found', 0):6} "
              f"{k.get('errors', 0):7}")
    if s["file_errors"]:
        print(f"files that could not be read ({len(s['file_errors'])}):")
        for line in s["file_errors"]:
            print("  " + line)
    if s["count_mismatches"]:
        print(f"query count mismatches ({len(s['count_mismatches'])}):")
        for line in s["count_mismatches"]:
            print("  " + line)
    print(f"self-diff: {len(s['self_diff_files_with_findings'])} entry files with findings")
    for line in s["self_diff_files_with_findings"]:
        print("  " + line)
    print(f"edits: {s['edits']} {s['edits_by_expected']}; verdict as expected: "
          f"{s['edits_agreeing']}/{s['edits']}")
    print("confusion matrix (rows expected, columns got):")
    print("  " + " " * 14 + "".join(f"{g:>14}" for g in VERDICTS))
    for e, row in s["confusion_matrix"].items():
        print(f"  {e:<14}" + "".join(f"{row[g]:>14}" for g in VERDICTS))
    print(f"incompatible edits reported compatible: {s['incompatible_reported_compatible']}")
    if s["edit_errors"]:
        print(f"edits that could not be judged ({len(s['edit_errors'])}):")
        for line in s["edit_errors"][:20]:
            print("  " + line)
        if len(s["edit_errors"]) > 20:
            print(f"  ... {len(s['edit_errors']) - 20} more")
    print("misses per file:")
    for path, lines in s["misses_per_file"].items():
        print(f"  {path} ({len(lines)})")
        for line in lines:
            print("    " + line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also save the summary and the rows as JSON")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 on a missed query, a self-diff finding, or an incompatible "
                             "edit reported compatible")
    parser.add_argument("--available", action="store_true",
                        help="measure the files that are materialised, naming the others "
                             "(a snapshot may be over the size the search tool brings)")
    args = parser.parse_args(argv)
    manifest = rw.load_manifest()
    absent = rw.missing(manifest)
    edits = rw.load_edits()
    if absent and args.available:
        print(f"not measured ({len(absent)} files not materialised): {', '.join(absent)}",
              file=sys.stderr)
        manifest = [e for e in manifest if e["path"] not in absent]
        edits = [e for e in edits if e["file"] not in absent]
    elif absent:
        print(f"{len(absent)} corpus files are not materialised (python bench/realworld_fetch.py):",
              file=sys.stderr)
        for path in absent[:10]:
            print("  " + path, file=sys.stderr)
        return 2
    start = time.perf_counter()
    files = measure_files(manifest)
    edits = measure_edits(edits)
    summary = summarize(files, edits, time.perf_counter() - start)
    print_summary(summary)
    if args.json:
        data = {"summary": summary, "files": files, "edits": edits}
        Path(args.json).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    if args.check and (summary["count_mismatches"] or summary["file_errors"]
                       or summary["self_diff_files_with_findings"]
                       or summary["incompatible_reported_compatible"]):
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
