"""`--confirm` over the real-world corpus's edits, with no configuration at all.

Usage: python bench/realworld_confirm.py [--only SUBSTRING] [--limit N] [--json OUT.json]
For every edit of tests/realworld/EDITS.toml (real public jobs, realistic edits), the
original and the edited file are confirmed on Spark in one JVM, each version running its own
copy of its repository's code and small files at the manifest's commit (read from the
snapshots in /work/.mirror, as bench/realworld_fetch.py does: a job's own modules such as
`lib/logger.py` are there), with no `[tool.streamlint]` tables: schemas come from the job
itself or are inferred. Prints one line per edit (the
static verdict, Spark's outcome per query, why not where Spark gave no answer) and the share
of edits Spark confirmed, by reason where not. Classification as in bench/confirm_corpus.py.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import realworld_corpus as rw  # noqa: E402
from confirm_corpus import SPARK_VERSION, classify, why_not_confirmed  # noqa: E402

MIRRORS = Path("/work/.mirror")
MAX_DATA_BYTES = 1_000_000


def repository(entry: dict, into: Path) -> Path:
    """The Python files, notebooks and files up to 1 MB (schemas, sample data) of the entry's
    repository at its commit, under `into` (the repository's root). Snapshots may lack large
    blobs: a missing one is left out."""
    git_dir = MIRRORS / entry["repo"].replace("/", "+") / "repo"
    into.mkdir(parents=True)
    for rev in (entry["commit"], "HEAD"):
        listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-l", "-z",
                                  rev], capture_output=True, check=False)
        if listing.returncode == 0:
            break
    else:
        return into
    wanted = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, name = record.split(b"\t", 1)
        path = name.decode("utf-8", "replace")
        _, kind, sha, size = meta.split()
        # The code, and the small files beside it a job reads (schemas, sample data).
        small = size.isdigit() and int(size) <= MAX_DATA_BYTES  # "BAD": not in the snapshot
        if kind == b"blob" and (path.endswith((".py", ".ipynb")) or small):
            wanted.append((sha.decode(), path))
    batch = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                           input="".join(f"{sha}\n" for sha, _ in wanted).encode(),
                           capture_output=True, check=False).stdout
    at = 0
    for _, path in wanted:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].split()
        at = header_end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue  # "missing": not in the snapshot
        size = int(header[2])
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(batch[at:at + size])
        at += size + 1
    return into


def confirm_edit(edit: dict, entry: dict, session: object) -> dict:
    from streamlint.diff import diff_jobs
    from streamlint.spark.confirm import confirm_files

    with tempfile.TemporaryDirectory(prefix="realworld-confirm-") as tmp:
        # Each version its own copy of the repository: nothing of the corpus is written.
        root = edit["file"].split("/", 1)[0]
        text = (rw.REALWORLD / edit["file"]).read_text(encoding="utf-8")
        if text.count(edit["find"]) != 1:
            raise ValueError(f"`find` occurs {text.count(edit['find'])} times")
        paths = []
        for side, body in (("old", text), ("new", text.replace(edit["find"], edit["replace"]))):
            repository(entry, Path(tmp) / side / root)
            path = Path(tmp) / side / edit["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body.encode("utf-8"))
            paths.append(path)
        old, new = paths
        static = diff_jobs(rw.load_job(old), rw.load_job(new), SPARK_VERSION)
        result = confirm_files(old, new, session, {}, timeout=60, static=(static.old, static.new))
    outcomes = [q.outcome for q in result.queries]
    verdict = classify(static.verdict, [q.verdict for q in result.queries], result.problem)
    if result.no_query:  # Spark ran both and neither started a streaming query: no checkpoint
        verdict = "agree" if static.verdict == "compatible" else "disagree: static stricter"
    if verdict == "not confirmed":
        messages = [q.message or "" for q in result.queries]
        verdict += f" ({why_not_confirmed(result.problem, outcomes, messages)})"
    detail = result.problem or ("no streaming query on Spark" if result.no_query else "") or \
        "; ".join(
        f"{q.outcome}{' ' + q.error_class if q.error_class else ''}"
        + (f" ({q.message[:90]})" if q.message and not q.error_class else "")
        for q in result.queries)
    return {"id": edit["id"], "file": edit["file"], "expected": edit["expected"],
            "static": static.verdict, "spark": outcomes, "classification": verdict,
            "detail": detail}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    missing = rw.missing(rw.load_manifest())
    if missing:
        print(f"{len(missing)} corpus files are missing: run python bench/realworld_fetch.py")
        return 2
    from streamlint.spark.runtime import start_session

    entries = {e["path"]: e for e in rw.load_manifest()}
    edits = [e for e in rw.load_edits() if args.only in e["id"] or args.only in e["file"]]
    edits = edits[: args.limit] if args.limit else edits
    session = start_session()
    rows = []
    began = time.perf_counter()
    for edit in edits:
        start = time.perf_counter()
        try:
            row = confirm_edit(edit, entries[edit["file"]], session)
        except Exception as exc:  # noqa: BLE001 - every failure is a measurement
            row = {"id": edit["id"], "file": edit["file"], "expected": edit["expected"],
                   "static": "error", "spark": [], "classification": "error",
                   "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows.append(row)
        print(f"{row['id']:45s} static={row['static']:12s} {row['classification']:40s} "
              f"{row['detail'][:160]}  [{row['seconds']:.0f}s]", flush=True)
    session.stop()
    counts = Counter(r["classification"] for r in rows)
    confirmed = sum(1 for r in rows if not r["classification"].startswith(("not", "error")))
    print(f"\n{len(rows)} edits in {time.perf_counter() - began:.0f} s; Spark's outcome for "
          f"{confirmed} ({100 * confirmed / max(len(rows), 1):.0f}%)")
    for key, value in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {value:4d}  {key}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
