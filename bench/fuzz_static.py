"""Fuzz the static path: `streamlint diff OLD NEW --format F` on two mutants of one job, in-process,
every format.

Usage: python bench/fuzz_static.py [--inputs N] [--workers 2] [--seed S] [--start I]
                                   [--out DIR] [--only I ...] [--timeout SECONDS]

A crash is an exception escaping `streamlint.cli.main`, an exit code other than 0, 1 or 2,
a traceback on stderr, a worker killed by a signal (a segfault in a native parser), or an
input still running after --timeout seconds (a hang: the bounds must answer long before).
Inputs are numbered; input i is the same on every run with the same --seed (see
fuzz_inputs.make_input), and every crashing input is also saved whole under --out.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from fuzz_inputs import FORMATS, load_seeds, make_input  # noqa: E402

# One input in 49 is a program hypothesmith generates (49: odd, so every worker gets some).
HYPOTHESMITH_EVERY = 49


class Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


def run_one(old_bytes: bytes, new_bytes: bytes, fmt: str,
            workdir: Path) -> tuple[str | None, str]:
    """(a crash description or None, the exit code or outcome) of one diff."""
    from streamlint.cli import main

    old, new = workdir / "old.py", workdir / "new.py"
    old.write_bytes(old_bytes)
    new.write_bytes(new_bytes)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["diff", str(old), str(new), "--format", fmt])
    except Hang:
        return "hang", "hang"
    except BaseException as exc:  # noqa: BLE001 - anything escaping main is the finding
        return "exception: " + "".join(traceback.format_exception(exc))[-3000:], "exception"
    if code not in (0, 1, 2):
        return f"exit code {code!r}", str(code)
    if "Traceback" in err.getvalue():
        return "traceback on stderr: " + err.getvalue()[-3000:], str(code)
    return None, str(code)


def _hypothesmith_program() -> bytes:
    import warnings

    import hypothesmith
    from hypothesis.errors import NonInteractiveExampleWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        text = hypothesmith.from_grammar().example()
    # Half of them name a stream, so they take the interpreter's path, not only the parser's.
    return (text + ("\nx = spark.readStream\n" if len(text) % 2 else "")).encode()


def worker(number: int, step: int, start: int, stop: int, args: argparse.Namespace,
           out: Path) -> None:
    os.environ["XDG_CACHE_HOME"] = str(out / "cache")
    seeds = load_seeds()
    signal.signal(signal.SIGALRM, _alarm)
    workdir = Path(tempfile.mkdtemp(prefix=f"fuzz{number}-"))
    current = os.open(out / f"current.{number}", os.O_WRONLY | os.O_CREAT, 0o644)
    counts: dict[str, int] = {}
    crashes: list[dict[str, object]] = []
    slowest = (0.0, -1)
    indices = args.only or range(start, stop, step)
    if not indices:
        return
    for done, index in enumerate(indices, 1):
        os.pwrite(current, f"{index:<20}".encode(), 0)
        if args.only is None and index % HYPOTHESMITH_EVERY == 0:
            origin, how = "hypothesmith", "hypothesmith"
            data = _hypothesmith_program()  # slow to make: one program, diffed with itself
            old = data
        else:
            origin, old, data, how = make_input(seeds, index, args.seed)
        fmt = FORMATS[index % len(FORMATS)]
        began = time.perf_counter()
        signal.alarm(args.timeout)
        try:
            crash, outcome = run_one(old, data, fmt, workdir)
        finally:
            signal.alarm(0)
        took = time.perf_counter() - began
        slowest = max(slowest, (took, index))
        counts[f"{how}:{outcome}"] = counts.get(f"{how}:{outcome}", 0) + 1
        if crash is not None:
            (out / f"crash-{index}-old.py").write_bytes(old)
            (out / f"crash-{index}-new.py").write_bytes(data)
            crashes.append({"index": index, "seed": origin, "how": how, "format": fmt,
                            "crash": crash, "input": str(out / f"crash-{index}-new.py")})
            print(f"CRASH input {index} ({how}, {fmt}, from {origin}): {crash[:300]}",
                  file=sys.stderr, flush=True)
        if done % 500 == 0 or index == indices[-1]:
            # Written as it goes, so a run stopped early still counts what it did.
            result = {"inputs": done, "counts": counts, "crashes": crashes, "slowest": slowest,
                      "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
            partial = out / f"result.{number}.{start}.part"
            partial.write_text(json.dumps(result))
            partial.replace(out / f"result.{number}.{start}.json")
            print(f"worker {number}: {done} inputs", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--only", type=int, nargs="*", default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--summarize", type=Path, default=None,
                        help="only summarize the results written so far under this --out")
    args = parser.parse_args()
    if args.summarize:
        return summarize(args.summarize, [], float((args.summarize / "began").read_text()))
    out = args.out or Path(tempfile.mkdtemp(prefix="streamlint-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    began = time.time()
    (out / "began").write_text(str(began))
    stop = args.start + args.inputs
    workers = 1 if args.only else args.workers
    running = {}
    for number in range(workers):
        proc = multiprocessing.Process(target=worker, args=(
            number, workers, args.start + number, stop, args, out))
        proc.start()
        running[number] = proc
    died: list[dict[str, object]] = []
    while running:
        for number, proc in list(running.items()):
            proc.join(timeout=1)
            if proc.exitcode is None:
                continue
            del running[number]
            if proc.exitcode != 0:
                # Killed (a segfault in a native parser): record the input, go on after it.
                index = int((out / f"current.{number}").read_text().strip())
                died.append({"index": index, "crash": f"worker died (exit {proc.exitcode})"})
                print(f"CRASH input {index}: worker died (exit {proc.exitcode})",
                      file=sys.stderr, flush=True)
                if index + workers < stop and not args.only:
                    proc = multiprocessing.Process(target=worker, args=(
                        number, workers, index + workers, stop, args, out))
                    proc.start()
                    running[number] = proc
    return summarize(out, died, began)


def summarize(out: Path, died: list[dict[str, object]], began: float) -> int:
    results = [json.loads(p.read_text()) for p in out.glob("result.*.json")]
    counts: dict[str, int] = {}
    for result in results:
        for key, value in result["counts"].items():
            counts[key] = counts.get(key, 0) + value
    crashes = [c for r in results for c in r["crashes"]] + died
    slowest = max((tuple(r["slowest"]) for r in results), default=(0.0, -1))
    summary = {
        "inputs": sum(r["inputs"] for r in results) + len(died),
        "crashes": len(crashes), "seconds": round(time.time() - began, 1),
        "slowest_input": {"index": slowest[1], "seconds": round(slowest[0], 2)},
        "max_rss_mb": round(max((r["max_rss_kb"] for r in results), default=0) / 1024, 1),
        "outcomes": dict(sorted(counts.items())), "out": str(out),
        "crash_list": crashes,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: v for k, v in summary.items() if k != "crash_list"}, indent=2))
    for crash in crashes[:20]:
        print(f"input {crash['index']}: {str(crash['crash'])[-600:]}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
